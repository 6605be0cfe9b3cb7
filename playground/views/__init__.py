"""Views, one module per page (django-htmx-patterns: a page's view also handles its actions).
They stay thin: services change things, selectors and presenters read them."""
