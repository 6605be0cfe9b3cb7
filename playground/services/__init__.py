"""Services: the functions that change things (HackSoftware Django-Styleguide)."""
