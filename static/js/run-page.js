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

// A refusal the server answers with a fragment (a 400 or 403 naming the field and why) is meant
// to be swapped in place, next to its form (the htmx-config meta in base.html swaps those codes).
// Under DEBUG, django-htmx's script replaces the whole document with any 400/403/404/500
// response (to show Django's error page): it listens on the document, so a listener that runs
// first, on the window while capturing, keeps fragments from it. Whole documents (Django's
// error pages) still go through to it; htmx's own handling of the response is not affected.
window.addEventListener("htmx:beforeOnLoad", function (event) {
  var xhr = event.detail && event.detail.xhr;
  if (!xhr || xhr.status < 400 || xhr.status >= 500) return;
  var body = typeof xhr.response === "string" ? xhr.response : "";
  if (/^\s*(<!doctype|<html)/i.test(body)) return;
  event.stopPropagation();
}, true);

// The cluster map: a pushed update that redraws the map is swapped inside a View Transition, so
// each pod chip (view-transition-name per pod) moves from where it was to where it is now: a
// bind carries it from its queue to its node, a deleted pod fades out. Messages that arrive
// while a transition is starting wait for it, so updates are swapped in the order they came.
// Without the API, or when the viewer asks for reduced motion, htmx swaps as before.
(function () {
  var queued = null;
  // A message redraws the map at another point of the run than the page shows (a reconnect's
  // first message redraws the same one: nothing to animate).
  function mapMoves(message) {
    var found = /id="run-map"[^>]*data-seq="(\d+)"/.exec(message);
    var map = document.getElementById("run-map");
    return !!found && !!map && map.getAttribute("data-seq") !== found[1];
  }
  var reduce = window.matchMedia ? window.matchMedia("(prefers-reduced-motion: reduce)") : null;
  document.addEventListener("htmx:wsBeforeMessage", function (event) {
    var message = event.detail && event.detail.message;
    if (typeof message !== "string" || !window.htmx || !document.startViewTransition) return;
    if (queued === null && (!mapMoves(message) || (reduce && reduce.matches) || document.hidden)) return;
    event.preventDefault();
    var socketElt = event.target;
    if (queued !== null) { queued.push(message); return; }
    queued = [message];
    document.startViewTransition(function () {
      var messages = queued;
      queued = null;
      messages.forEach(function (m) {
        htmx.swap(socketElt, m, { swapStyle: "none", swapDelay: 0, settleDelay: 0 });
      });
    });
  });
})();

// A node's name on the map opens its details: its card in the Cluster panel when the card is on
// the page; in a bigger cluster (cards a page at a time) the node's detail under the panel.
// A click anywhere on a node's box (or Enter on the focused box) is a click on its name.
function mapNodeLink(event) {
  var target = event.target;
  if (!target || !target.closest) return null;
  var link = target.closest("a[data-open-node]");
  if (link) return link;
  var box = target.closest("#run-map [data-node]");
  return box ? box.querySelector("a[data-open-node]") : null;
}
document.addEventListener("keydown", function (event) {
  if (event.key !== "Enter" || !event.target || !event.target.matches || !event.target.matches("#run-map [data-node]")) return;
  var link = event.target.querySelector("a[data-open-node]");
  if (link) { event.preventDefault(); link.click(); }
});
document.addEventListener("click", function (event) {
  var link = mapNodeLink(event);
  if (!link) return;
  if (link !== event.target.closest("a[data-open-node]")) { event.preventDefault(); link.click(); return; }
  var name = link.getAttribute("data-open-node");
  var card = document.querySelector('#run-cluster [data-node="' + CSS.escape(name) + '"]');
  var detail = document.getElementById("node-detail");
  var map = document.getElementById("run-map");
  if (card || !detail || !map || !window.htmx) return;  // the anchor scrolls to the card
  event.preventDefault();
  var values = { node: name };
  var scope = document.getElementById("map-query");  // a pinned page's step
  if (scope) Array.prototype.forEach.call(scope.elements, function (input) { if (input.name) values[input.name] = input.value; });
  delete values.map_zone; delete values.map_page;
  htmx.ajax("GET", map.getAttribute("data-node-url"), { target: "#node-detail", values: values }).then(function () {
    detail.scrollIntoView({ block: "start" });
  });
});
