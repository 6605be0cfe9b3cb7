// Keyboard shortcuts of the run page without eval: a key press outside form fields becomes the
// body event "run-key-<key>", which the control buttons list in their hx-trigger. (htmx trigger
// filters such as keyup[key=='s'] need eval, which the Content-Security-Policy forbids.)
document.addEventListener("keyup", function (event) {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  var target = event.target;
  if (target && target.closest && target.closest("input,textarea,select")) return;
  if (event.key === "?") return showShortcuts();
  if (!/^[a-z]$/.test(event.key)) return;
  if (window.htmx) window.htmx.trigger(document.body, "run-key-" + event.key);
});

// "?" (or the header's ? button) opens the list of shortcuts; Esc or Close shuts it.
function showShortcuts() {
  var dialog = document.getElementById("shortcuts");
  if (dialog && !dialog.open) dialog.showModal();
}
document.addEventListener("click", function (event) {
  if (event.target && event.target.closest && event.target.closest("[data-open-shortcuts]")) showShortcuts();
});

// "Jump to cycle" shows the cycle on screen: the controls are not re-rendered by live updates,
// so after each swap the field takes the status line's cycle again, unless the learner is
// typing a cycle of their own into it.
function syncJumpCycle() {
  var field = document.getElementById("jump-cycle");
  var shown = document.getElementById("run-cycle");
  if (!field || !shown || field === document.activeElement || field.dataset.edited) return;
  field.value = shown.textContent.trim();
}
document.addEventListener("input", function (event) {
  if (event.target && event.target.id === "jump-cycle") event.target.dataset.edited = "1";
});
document.addEventListener("htmx:oobAfterSwap", syncJumpCycle);
document.addEventListener("htmx:afterSettle", syncJumpCycle);
