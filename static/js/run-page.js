// The run page's small behaviours, as event listeners instead of hx-on / hx-vals "js:" attributes
// (htmx evaluates those with Function(), which the Content-Security-Policy forbids). Listeners are
// on the document, so the elements the websocket swaps in (out of band) keep working.

// The timeline scrubber: the step under the thumb while dragging; letting go opens that step.
document.addEventListener("input", function (event) {
  var target = event.target;
  if (!target || target.id !== "scrub") return;
  var out = document.getElementById("scrub-out");
  if (out) out.value = target.value;
});
document.addEventListener("change", function (event) {
  var target = event.target;
  if (!target || target.id !== "scrub" || !target.form) return;
  target.form.requestSubmit();
});

// The node heatmap: the clicked cell names the node to open (its title is the node's name).
document.addEventListener("htmx:configRequest", function (event) {
  var detail = event.detail;
  if (!detail || !detail.elt || detail.elt.id !== "heatmap") return;
  var cell = detail.triggeringEvent && detail.triggeringEvent.target;
  detail.parameters["node"] = (cell && cell.title) || "";
});

// The status badge: say so at once when the run's websocket closes (htmx reconnects by itself;
// the server's first message after reconnecting puts "live" back).
document.addEventListener("htmx:wsClose", function () {
  var badge = document.getElementById("run-socket");
  if (badge) badge.textContent = "disconnected: reconnecting…";
});
