// Every page: the language menu submits itself on change (the CSP allows no inline handler), and the service worker is registered.
const select = document.getElementById("language-select");
if (select) select.addEventListener("change", () => select.form.submit());
const worker = document.documentElement.dataset.worker;
if (worker && "serviceWorker" in navigator) navigator.serviceWorker.register(worker).catch(() => {});
