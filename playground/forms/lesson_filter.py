"""The gallery index's search and filters (GET parameters: `q`, `chapter`, `status`).

A plain GET form, so the filtered list has an address of its own and works without JavaScript;
htmx only swaps the results in place. An unknown chapter or status is said beside its field and
the list shows unfiltered by it: a stale bookmark still lands somewhere useful."""

from __future__ import annotations

from django import forms

from playground.chapters import CHAPTERS

STATUSES = (
    ("", "Any progress"),
    ("new", "Not started"),
    ("started", "Started"),
    ("finished", "Finished"),
)


class LessonFilterForm(forms.Form):
    q = forms.CharField(
        required=False,
        max_length=100,
        label="Search lessons",
        widget=forms.TextInput(attrs={"type": "search", "placeholder": "e.g. taints, GPU, queue", "id": "lesson-q"}),
    )
    chapter = forms.ChoiceField(
        required=False,
        label="Chapter",
        choices=[("", "All chapters"), *((c.slug, c.title) for c in CHAPTERS)],
        widget=forms.Select(attrs={"id": "lesson-chapter"}),
    )
    status = forms.ChoiceField(
        required=False, label="Progress", choices=STATUSES, widget=forms.Select(attrs={"id": "lesson-status"})
    )

    def filters(self) -> dict[str, str]:
        """The valid filters (a field with an error counts as not given)."""
        self.is_valid()
        data = getattr(self, "cleaned_data", {})
        return {name: (data.get(name) or "").strip() for name in ("q", "chapter", "status")}
