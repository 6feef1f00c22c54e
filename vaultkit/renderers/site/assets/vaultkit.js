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

  function onPage() {
    typeset();
    searchOnInput();
  }
  if (window.document$) window.document$.subscribe(onPage);  // material: every page load
  else document.addEventListener("DOMContentLoaded", onPage);
})();
