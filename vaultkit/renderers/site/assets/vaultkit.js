// vaultkit's script for every page of the site.
(function () {
  // Typeset the formulas with KaTeX, which vaultkit build ships when it finds it. Each formula
  // is already MathML (written at build time); it stays when KaTeX is absent or cannot read it.
  function typeset() {
    if (!window.katex) return;
    document.querySelectorAll(".md-typeset [data-tex]:not(.vk-katex)").forEach(function (el) {
      try {
        window.katex.render(el.getAttribute("data-tex"), el, {
          displayMode: el.tagName === "DIV", throwOnError: true, output: "htmlAndMathml"
        });
        el.classList.add("vk-katex");
      } catch (error) {
        // not KaTeX's TeX: the MathML stays
      }
    });
  }

  // Material searches on `keyup`; Chinese typed through an input method, pasted or
  // autocompleted text arrives as an `input` event with no key released, so pass it on.
  function searchOnInput() {
    var box = document.querySelector(".md-search__input");
    if (!box || box.dataset.vkInput) return;
    box.dataset.vkInput = "1";
    box.addEventListener("input", function (event) {
      if (!event.isComposing) box.dispatchEvent(new KeyboardEvent("keyup", {bubbles: true}));
    });
  }

  // A date property in the reader's own format, as Obsidian's date picker follows the
  // system's: `<time class="vk-date" datetime="2024-03-02">` (or with a time, local).
  function localDates() {
    document.querySelectorAll("time.vk-date[datetime]:not([data-vk-local])").forEach(function (el) {
      var stamp = el.getAttribute("datetime"), day = stamp.match(/^(\d{4})-(\d{2})-(\d{2})$/);
      var when = day ? new Date(+day[1], day[2] - 1, +day[3]) : new Date(stamp);
      if (isNaN(when.getTime())) return;
      var shape = {year: "numeric", month: "2-digit", day: "2-digit"};
      if (!day) { shape.hour = "2-digit"; shape.minute = "2-digit"; }
      el.textContent = day ? when.toLocaleDateString(undefined, shape) : when.toLocaleString(undefined, shape);
      el.setAttribute("data-vk-local", "");
    });
  }

  function onPage() {
    typeset();
    localDates();
    searchOnInput();
  }
  if (window.document$) window.document$.subscribe(onPage);  // material: every page load
  else document.addEventListener("DOMContentLoaded", onPage);
})();
