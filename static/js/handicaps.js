// Handicap table form (issue 7): choosing pairs or teams resubmits the form, and member names
// autocomplete from the club's member search (names and numbers only, never grades).
document.addEventListener("DOMContentLoaded", () => {
  const form = document.getElementById("handicap-form");
  if (!form) return;

  const list = document.getElementById("member-options");
  const url = form.dataset.searchUrl;
  let timer = null, last = "";
  form.querySelectorAll("input[name=kind]").forEach(r => r.addEventListener("change", () => form.submit()));
  form.addEventListener("input", (event) => {
    const input = event.target;
    if (!input.classList.contains("member-input")) return;
    const q = input.value.trim();
    if (q.length < 2 || q === last || /\(\d+\)$/.test(q)) return;
    clearTimeout(timer);
    timer = setTimeout(async () => {
      last = q;
      const response = await fetch(url + "?q=" + encodeURIComponent(q), {credentials: "same-origin", headers: {"Accept": "application/json"}});
      if (!response.ok) return;
      const data = await response.json();
      list.replaceChildren(...data.results.map(m => { const o = document.createElement("option"); o.value = m.label; return o; }));
    }, 150);
  });
});
