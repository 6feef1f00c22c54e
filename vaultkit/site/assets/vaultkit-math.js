// Typesets the formulas of a page with KaTeX, which vaultkit build ships when it finds it.
// Each formula is already MathML (written at build time); it stays when KaTeX cannot read the TeX.
(function () {
  function typeset() {
    if (!window.katex) return;
    document.querySelectorAll(".md-typeset [data-tex]").forEach(function (el) {
      try {
        window.katex.render(el.getAttribute("data-tex"), el, {
          displayMode: el.tagName === "DIV", throwOnError: true, output: "htmlAndMathml"
        });
        el.classList.add("vk-katex");
      } catch (error) {
        // not KaTeX's TeX: the MathML written at build time stays
      }
    });
  }
  if (window.document$) window.document$.subscribe(typeset);  // material: every page load
  else document.addEventListener("DOMContentLoaded", typeset);
})();
