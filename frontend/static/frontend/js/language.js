// The language menu submits itself on change (a script file: the Content-Security-Policy allows no inline handlers).
const select = document.getElementById("language-select");
if (select) select.addEventListener("change", () => select.form.submit());
