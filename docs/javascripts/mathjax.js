// MathJax settings for pymdownx.arithmatex (generic mode), re-typeset on Material's instant loads.
window.MathJax = {
  tex: {inlineMath: [["\\(", "\\)"]], displayMath: [["\\[", "\\]"]], processEscapes: true},
  options: {ignoreHtmlClass: ".*|", processHtmlClass: "arithmatex"},
};
if (typeof document$ !== "undefined") {
  document$.subscribe(() => {
    MathJax.startup.output.clearCache();
    MathJax.typesetClear();
    MathJax.texReset();
    MathJax.typesetPromise();
  });
}
