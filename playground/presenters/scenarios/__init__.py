"""The scenario page, shaped for its templates: paged object lists, the YAML panel, the parts an
editor action re-renders."""
