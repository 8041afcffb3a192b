#!/usr/bin/env node
// A browser without a person, for tests of Turn's OAuth sign-in (TURN_BROWSER): it opens the
// authorization URL it is given and follows the redirects, as a browser would, until a page
// answers — the conformance suite's authorization server redirects at once to Turn's loopback
// listener with the code. At most 5 redirects.
const start = process.argv[process.argv.length - 1];
let url = new URL(start);
for (let hop = 0; hop <= 5; hop++) {
  const r = await fetch(url, { redirect: 'manual' });
  const location = r.headers.get('location');
  await r.body?.cancel();
  if (r.status < 300 || r.status >= 400 || !location) process.exit(r.ok ? 0 : 1);
  url = new URL(location, url);
}
process.exit(1);
