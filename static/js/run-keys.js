// Keyboard shortcuts of the run page without eval: a key press outside form fields becomes the
// body event "run-key-<key>", which the control buttons list in their hx-trigger. (htmx trigger
// filters such as keyup[key=='s'] need eval, which the Content-Security-Policy forbids.)
document.addEventListener("keyup", function (event) {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  var target = event.target;
  if (target && target.closest && target.closest("input,textarea,select")) return;
  if (!/^[a-z]$/.test(event.key)) return;
  if (window.htmx) window.htmx.trigger(document.body, "run-key-" + event.key);
});
