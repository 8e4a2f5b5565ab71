// Small behaviours without inline scripts (the Content-Security-Policy forbids them).
document.addEventListener("click", (event) => {
  const button = event.target.closest("[data-print]");
  if (button) window.print();
});
document.addEventListener("submit", (event) => {
  const message = event.target.getAttribute("data-confirm");
  if (message && !window.confirm(message)) event.preventDefault();
});
document.addEventListener("change", (event) => {
  if (event.target.matches("[data-autosubmit]")) event.target.form.submit();
});
// On a phone a menu is one sideways-scrolling line: bring the current page's link into view.
document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll(".club-tabs [aria-current=page], .subnav [aria-current=page]").forEach((link) => {
    const menu = link.parentElement;
    if (menu.scrollWidth > menu.clientWidth) menu.scrollLeft = link.offsetLeft - menu.offsetLeft - 16;
  });
});
