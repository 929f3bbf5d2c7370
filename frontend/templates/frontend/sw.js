{% autoescape off %}// Piramide's service worker: the static shell from its cache, pages from the network.
// Only static files (public to all) and the offline page (rendered for nobody) are ever stored.
// Pages, the API and replays are not: a page carries its player's game, and a stored one could
// show a deal to the next person at a shared device.  Sockets never pass through a worker.
const CACHE = "piramide-shell-{{ version }}";
const SHELL = {{ shell }};
const OFFLINE = {{ offline }};
const STATIC = {{ static_prefix }};

self.addEventListener("install", (event) => {
  const requests = [...SHELL, OFFLINE].map((url) => new Request(url, { cache: "reload", credentials: "omit" }));
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(requests)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) if (name.startsWith("piramide-") && name !== CACHE) await caches.delete(name);
      if (self.registration.navigationPreload) await self.registration.navigationPreload.enable();
      await self.clients.claim();
    })(),
  );
});

async function staticFirst(request) {
  const cache = await caches.open(CACHE);
  const hit = await cache.match(request);
  if (hit) return hit;
  const response = await fetch(request);
  if (response.ok && response.type === "basic") cache.put(request, response.clone());
  return response;
}

async function pageFromNetwork(event) {
  try {
    return (await event.preloadResponse) || (await fetch(event.request));
  } catch {
    return (await caches.match(OFFLINE)) || Response.error();
  }
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return;
  if (url.pathname.startsWith(STATIC)) event.respondWith(staticFirst(request));
  else if (request.mode === "navigate") event.respondWith(pageFromNetwork(event));
  // Anything else (the API, /jsi18n/, replays) is left to the network, untouched.
});
{% endautoescape %}
