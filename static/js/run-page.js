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
// Without the API, or when the viewer asks for reduced motion, the swap happens at once.
// A bigger map (more than 50 nodes) comes as this step's change, a <template id="map-delta">
// (partials/cluster_map_delta.html): it is taken out of the message and its nodes swapped in by
// data-node when the map shows the frame it starts from (data-from); otherwise (the page missed
// a step, a zone is open, a node is new) the map's body is fetched from its data-url.
(function () {
  var queued = null;
  var DELTA = /<template id="map-delta"[\s\S]*?<\/template>/;
  // A message redraws the map at another point of the run than the page shows (a reconnect's
  // first message redraws the same one: nothing to animate).
  function mapMoves(message) {
    var found = /id="run-map"[^>]*data-seq="(\d+)"/.exec(message);
    var map = document.getElementById("run-map");
    return !!found && !!map && map.getAttribute("data-seq") !== found[1];
  }
  function shownSeq() {
    var layout = document.querySelector("#map-body > .map-layout");
    return layout ? layout.getAttribute("data-seq") : null;
  }
  function refetch(template) {
    var values = {};
    var scope = document.getElementById("map-query");
    if (scope) Array.prototype.forEach.call(scope.elements, function (input) { if (input.name) values[input.name] = input.value; });
    values.step = template.getAttribute("data-step");
    htmx.ajax("GET", template.getAttribute("data-url"), { target: "#map-body", swap: "innerHTML", values: values });
  }
  // Swap a delta's parts into the map; false: it does not apply, the body is fetched instead.
  function applyDelta(template) {
    var seq = shownSeq();
    if (seq === template.getAttribute("data-seq")) return true;  // shown already
    var zone = document.querySelector('#map-body input[name="map_zone"]');
    if (seq !== template.getAttribute("data-from") || (zone && zone.value)) { refetch(template); return false; }
    var map = document.getElementById("map-body");
    var parts = template.content;
    var pairs = [];
    var nodes = parts.querySelectorAll("[data-node]");
    for (var i = 0; i < nodes.length; i++) {
      var old = map.querySelector('.map-cluster [data-node="' + CSS.escape(nodes[i].getAttribute("data-node")) + '"]');
      if (!old) { refetch(template); return false; }
      pairs.push([old, nodes[i]]);
    }
    // Chips of pods deleted by the step before leave with it.
    Array.prototype.forEach.call(map.querySelectorAll(".map-cluster [data-left]"), function (chip) { chip.remove(); });
    pairs.forEach(function (pair) { pair[0].replaceWith(document.importNode(pair[1], true)); });
    ["#run-map-title", ".map-queues"].forEach(function (selector) {
      var now = parts.querySelector(selector);
      var old = map.querySelector(selector);
      if (now && old) old.replaceWith(document.importNode(now, true));
    });
    map.querySelector(".map-layout").setAttribute("data-seq", template.getAttribute("data-seq"));
    return true;
  }
  var reduce = window.matchMedia ? window.matchMedia("(prefers-reduced-motion: reduce)") : null;
  function swap(socketElt, message) {
    var found = DELTA.exec(message);
    if (!found) { htmx.swap(socketElt, message, { swapStyle: "none", swapDelay: 0, settleDelay: 0 }); return; }
    var holder = document.createElement("div");
    holder.innerHTML = found[0];
    htmx.swap(socketElt, message.replace(DELTA, ""), { swapStyle: "none", swapDelay: 0, settleDelay: 0 });
    applyDelta(holder.firstElementChild);
  }
  // The delta moves the map: it starts where the page's map is.
  function deltaMoves(message) {
    var found = /<template id="map-delta" data-from="(\d+)" data-seq="(\d+)"/.exec(message);
    return !!found && shownSeq() === found[1];
  }
  document.addEventListener("htmx:wsBeforeMessage", function (event) {
    var message = event.detail && event.detail.message;
    if (typeof message !== "string" || !window.htmx) return;
    var hasDelta = message.indexOf('<template id="map-delta"') >= 0;
    var animate = !!document.startViewTransition && !(reduce && reduce.matches) && !document.hidden &&
      (mapMoves(message) || deltaMoves(message));
    if (queued === null && !animate && !hasDelta) return;
    event.preventDefault();
    var socketElt = event.target;
    if (queued !== null) { queued.push(message); return; }
    if (!animate) { swap(socketElt, message); return; }
    queued = [message];
    document.startViewTransition(function () {
      var messages = queued;
      queued = null;
      messages.forEach(function (m) { swap(socketElt, m); });
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
function openNodeDetail(name) {
  var detail = document.getElementById("node-detail");
  var map = document.getElementById("run-map");
  if (!detail || !map || !window.htmx) return false;
  var values = { node: name };
  var scope = document.getElementById("map-query");  // a pinned page's step
  if (scope) Array.prototype.forEach.call(scope.elements, function (input) { if (input.name) values[input.name] = input.value; });
  delete values.map_zone; delete values.map_page;
  htmx.ajax("GET", map.getAttribute("data-node-url"), { target: "#node-detail", values: values }).then(function () {
    detail.scrollIntoView({ block: "start" });
  });
  return true;
}
document.addEventListener("click", function (event) {
  var cell = event.target && event.target.closest && event.target.closest("#run-map .mcells [data-node]");
  if (cell) { openNodeDetail(cell.getAttribute("data-node")); return; }
  var link = mapNodeLink(event);
  if (!link) return;
  if (link !== event.target.closest("a[data-open-node]")) { event.preventDefault(); link.click(); return; }
  var name = link.getAttribute("data-open-node");
  var card = document.querySelector('#run-cluster [data-node="' + CSS.escape(name) + '"]');
  if (card) return;  // the anchor scrolls to the card
  if (openNodeDetail(name)) event.preventDefault();
});

// A compact map cell (500+ nodes) says what it is on hover: its name, pods and fill, read from
// its classes (c<tenths of cpu> m<tenths of memory>, one-letter marks), written once.
var CELL_MARKS = { x: "cordoned", t: "tainted", n: "NotReady", s: "chosen this cycle", k: "preemption makes room here", g: "a pod nominated here" };
document.addEventListener("mouseover", function (event) {
  var cell = event.target && event.target.closest && event.target.closest("#run-map .mcells [data-node]");
  if (!cell || cell.title) return;
  var parts = [cell.getAttribute("data-node")];
  var chips = cell.querySelectorAll("i").length;
  parts.push((chips || Number(cell.textContent) || 0) + " pods");
  cell.className.split(" ").forEach(function (name) {
    var tenth = /^([cm])(\d+)$/.exec(name);
    if (tenth) parts.push((tenth[1] === "c" ? "cpu " : "memory ") + "~" + Number(tenth[2]) * 10 + "%");
    else if (CELL_MARKS[name]) parts.push(CELL_MARKS[name]);
  });
  cell.title = parts.join(" · ");
});
// A pod's square names its pod.
document.addEventListener("mouseover", function (event) {
  var chip = event.target;
  if (!chip || chip.tagName !== "I" || !chip.closest || !chip.closest("#run-map .mcells") || chip.title) return;
  chip.title = chip.getAttribute("data-pod");
});

// A paged panel's refresh marker (partials/refresh.html, in a live update) has the page fetch the
// panel's body. Two fetches are skipped: one of the state the body already shows (data-version:
// the step and its last event; a re-sync resends the same marker), and, for a panel marked
// data-when-visible (the Cluster panel's heatmap, ~200 KB at 5,000 nodes, rendered by the web
// server on every step), one while the panel is off screen or folded: the newest such marker is
// kept and fetched when the panel scrolls into view, so each step costs what the viewer sees.
(function () {
  var shown = {};    // panel key -> the data-version its body was last fetched at
  var waiting = {};  // panel key -> the newest deferred marker's request
  var MARGIN = 200;  // px around the viewport that count as on screen (fetched just before it shows)
  function panelKey(elt) {
    var holder = elt && elt.parentElement;
    if (!holder || !/-refresh$/.test(holder.id || "")) return null;
    return holder.id.slice(0, -"-refresh".length);
  }
  function onScreen(body) {
    if (!body || document.hidden || body.closest("details:not([open])")) return false;
    var box = body.getBoundingClientRect();
    if (!box.width && !box.height) return false;
    var height = window.innerHeight || document.documentElement.clientHeight;
    return box.bottom >= -MARGIN && box.top <= height + MARGIN;
  }
  function issue(key, request) {
    shown[key] = request.version;
    request.go(true);  // past this confirmation: issued as it is
  }
  var observer = window.IntersectionObserver ? new IntersectionObserver(function (entries) {
    entries.forEach(function (entry) {
      if (!entry.isIntersecting) return;
      var key = entry.target.id.slice(0, -"-body".length);
      observer.unobserve(entry.target);
      var request = waiting[key];
      delete waiting[key];
      if (request) issue(key, request);
    });
  }, { rootMargin: MARGIN + "px" }) : null;
  document.addEventListener("htmx:confirm", function (event) {
    var elt = event.detail && event.detail.elt;
    var key = panelKey(elt);
    var version = key && elt.getAttribute("data-version");
    if (!version) return;
    event.preventDefault();
    var request = { version: version, go: event.detail.issueRequest };
    if (shown[key] === version) { delete waiting[key]; return; }  // the body shows this state
    var body = document.getElementById(key + "-body");
    if (!elt.hasAttribute("data-when-visible") || !observer || onScreen(body)) {
      delete waiting[key];
      issue(key, request);
      return;
    }
    waiting[key] = request;
    if (body) observer.observe(body);
  });
  // The viewer's own request for a panel's body (its pager, filter or search) fetches it as they
  // asked: a deferred marker's fetch must not land after it and put the body back to page 1
  // (scrolling to the pager is what brings the panel on screen and would issue the marker).
  document.addEventListener("htmx:beforeRequest", function (event) {
    var detail = event.detail || {};
    var target = detail.target;
    if (!target || !/-body$/.test(target.id || "") || panelKey(detail.elt)) return;
    var key = target.id.slice(0, -"-body".length);
    if (waiting[key]) {
      delete waiting[key];
      if (observer) observer.unobserve(target);
    }
  });
  // A failed fetch leaves the body as it was: the next marker of that state fetches it again.
  ["htmx:responseError", "htmx:sendError"].forEach(function (name) {
    document.addEventListener(name, function (event) {
      var key = panelKey(event.detail && event.detail.elt);
      if (key) delete shown[key];
    });
  });
  // A folded panel opened (<details>): fetch what it missed.
  document.addEventListener("toggle", function (event) {
    var details = event.target;
    if (!details.open) return;
    Object.keys(waiting).forEach(function (key) {
      var body = document.getElementById(key + "-body");
      if (body && details.contains(body) && onScreen(body)) { var request = waiting[key]; delete waiting[key]; issue(key, request); }
    });
  }, true);
})();
