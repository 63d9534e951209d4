// Progressive only: the page is whole without this. Hovering a legend
// entry dims every other phase on the timeline; the body's data
// attributes tell a browser test the page rendered.
(function () {
  "use strict";
  var svg = document.getElementById("timeline");
  var rects = svg ? svg.querySelectorAll("rect.iv, rect.tot") : [];
  function focus(phase) {
    for (var i = 0; i < rects.length; i++) {
      rects[i].classList.toggle("dim", phase !== "" && rects[i].getAttribute("data-phase") !== phase);
    }
  }
  var items = document.querySelectorAll("[data-legend-phase]");
  for (var i = 0; i < items.length; i++) {
    items[i].addEventListener("mouseenter", function (e) { focus(e.currentTarget.getAttribute("data-legend-phase")); });
    items[i].addEventListener("mouseleave", function () { focus(""); });
  }
  document.body.dataset.intervals = String(svg ? svg.querySelectorAll("rect.iv").length : 0);
  document.body.dataset.rendered = "ok";
})();
