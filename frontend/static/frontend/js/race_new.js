// Create a race room, then go to its page.
import { api } from "./api.js";

const form = document.querySelector("form.race-new");
form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const button = form.querySelector("button");
  button.disabled = true;
  try {
    const race = await api("POST", "/api/races/", { preset: form.preset.value });
    location.href = `/races/${race.code}/`;
  } catch (error) {
    form.querySelector(".error").textContent = error.message;
    button.disabled = false;
  }
});
document.body.dataset.ready = "1";
