// The profile's share link: copy it in one press.
import { copyText } from "./share.js";

const _ = (s) => (window.gettext ? window.gettext(s) : s);

const button = document.querySelector(".copy-link");
if (button) {
  button.addEventListener("click", async () => {
    const status = document.querySelector(".copy-status");
    if (await copyText(button.dataset.link)) status.textContent = _("Link copied");
  });
}
