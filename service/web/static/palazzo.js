// Palazzo's pages work without this file; it only adds comfort:
// - live refresh: polls the game's event feed and its table talk, and redraws the page when the game moves on
//   or somebody writes (or, while the player is filling in a form, says so instead of losing his input);
// - the value of a work as bonus cards are ticked, before asking the server for the preview;
// - a preview of a piece on the yard while the pointer or the focus is on a highlighted square;
// - on the settings page, the browser's own time zone chosen while the stored one is still the default.
(function () {
  "use strict";
  var main = document.querySelector("main[data-game]");

  function follow() {
    if (!main || !main.dataset.feed || ["finished", "cancelled"].indexOf(main.dataset.status) >= 0) return;
    var after = main.dataset.feed, every = 1000 * Number(main.dataset.poll || 15), dirty = false, leaving = false;
    document.addEventListener("input", function () { dirty = true; });
    document.addEventListener("change", function () { dirty = true; });
    // a form on its way (its own move grows the feed too) or a link followed: never reload over it
    document.addEventListener("submit", function () { leaving = true; });
    window.addEventListener("pagehide", function () { leaving = true; });
    // a short request now and then, not a long-poll: an open tab must not hold a server thread
    function later() { setTimeout(poll, document.hidden ? 4 * every : every); }
    function ask(path) {
      return fetch("/api/v1/games/" + main.dataset.game + path, {headers: {"Accept": "application/json"}, credentials: "omit"})
        .then(function (r) { if (!r.ok) throw new Error(r.status); return r.json(); });
    }
    function poll() {
      if (leaving) return;
      // the feed, and the table talk (its cursor moves past any new message, so a private one shows on reload)
      var talk = main.dataset.talk;
      Promise.all([ask("/events?limit=1&after=" + after),
                   talk ? ask("/messages?limit=1&after=" + talk) : Promise.resolve({next_after: 0})])
        .then(function (pages) {
          if (leaving) return;
          if (!pages[0].events.length && !(talk && pages[1].next_after > Number(talk))) { later(); return; }
          if (!dirty) { location.reload(); return; }
          var note = document.querySelector("[data-live]");
          if (note) note.hidden = false;
        })
        .catch(later);
    }
    later();
  }

  function totals() {
    document.querySelectorAll("form.publish-pick").forEach(function (form) {
      var out = form.querySelector("[data-total]");
      function update() {
        var value = Number(form.dataset.base), least = Number(form.dataset.least);
        form.querySelectorAll("input[data-adds]:checked").forEach(function (box) { value += Number(box.dataset.adds); });
        out.textContent = "With these cards the work is worth " + value + (value >= least
          ? " (enough: the round needs " + least + ")." : ": the round needs " + least + ".");
      }
      form.addEventListener("change", update);
      update();
    });
  }

  function previews() {
    var svgNS = "http://www.w3.org/2000/svg";
    document.querySelectorAll("svg.yard").forEach(function (svg) {
      var layer = svg.querySelector("g.preview"), cell = Number(svg.dataset.cell), margin = Number(svg.dataset.margin);
      svg.querySelectorAll("a.anchor").forEach(function (anchor) {
        function show() {
          clear();
          anchor.dataset.squares.split(" ").forEach(function (pair) {
            var rc = pair.split(","), rect = document.createElementNS(svgNS, "rect");
            rect.setAttribute("x", margin + Number(rc[1]) * cell);
            rect.setAttribute("y", margin + Number(rc[0]) * cell);
            rect.setAttribute("width", cell);
            rect.setAttribute("height", cell);
            rect.setAttribute("fill", "#7a2e1d");
            rect.setAttribute("opacity", "0.45");
            rect.setAttribute("pointer-events", "none");
            layer.appendChild(rect);
          });
        }
        function clear() { while (layer.firstChild) layer.removeChild(layer.firstChild); }
        anchor.addEventListener("mouseenter", show);
        anchor.addEventListener("focus", show);
        anchor.addEventListener("mouseleave", clear);
        anchor.addEventListener("blur", clear);
      });
    });
  }

  function browserZone() {
    var select = document.querySelector("select[data-browser-zone]"), zone;
    if (!select) return;
    try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone; } catch (e) { return; }
    if (!zone || zone === select.value) return;
    var option = Array.prototype.find.call(select.options, function (o) { return o.value === zone; });
    if (!option) return;
    select.value = zone;
    var note = document.querySelector("[data-zone-note]");
    if (note) note.hidden = false;
  }

  follow();
  totals();
  previews();
  browserZone();
})();
