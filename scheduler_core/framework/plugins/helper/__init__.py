"""Shared helpers of the in-tree plugins (upstream `framework/plugins/helper`)."""
