// Every page: the language menu submits itself on change (a script file: the Content-Security-Policy
// allows no inline handlers), and the service worker that makes the site installable is registered.
const select = document.getElementById("language-select");
if (select) select.addEventListener("change", () => select.form.submit());
const worker = document.documentElement.dataset.worker;
if (worker && "serviceWorker" in navigator) navigator.serviceWorker.register(worker).catch(() => {});
