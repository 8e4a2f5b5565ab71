// Draws every plotly figure on the page. A figure is a JSON data block written by Django's
// json_script filter ({data, layout}); the element that shows it names it in data-plotly.
// No inline script is needed, so the Content-Security-Policy can forbid them.
function drawCharts(root) {
  if (typeof Plotly === "undefined") return;
  root.querySelectorAll("[data-plotly]").forEach((element) => {
    if (element.dataset.drawn) return;
    const source = document.getElementById(element.dataset.plotly);
    if (!source) return;
    const figure = JSON.parse(source.textContent);
    const config = Object.assign({responsive: true, displaylogo: false, displayModeBar: false}, figure.config || {});
    Plotly.newPlot(element, figure.data || [], figure.layout || {}, config);
    element.dataset.drawn = "1";
  });
}
document.addEventListener("DOMContentLoaded", () => drawCharts(document));
document.addEventListener("htmx:afterSettle", (event) => drawCharts(event.target));
