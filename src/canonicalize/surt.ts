// The SURT form of a canonical URL, as Heritrix and the Wayback Machine
// write CDX keys (webarchive-commons WaybackURLKeyMaker without its
// canonicalizer): the scheme and `://` dropped, userinfo kept in front,
// host labels reversed and joined by `,` (an IPv4 address is reversed too;
// an IPv6 literal loses its brackets), `:port` kept, then `)` and the path
// and query unchanged: `http://www.example.com:8080/a?b` ->
// `com,example,www:8080)/a?b`. Does not canonicalize (the profile did).
// REQUIRES: `url` is an absolute URL whose host[:port] is url[hostStart, hostEnd).

/** `host` in SURT order: `www.example.com` -> `com,example,www`. */
export function hostToSurt(host: string): string {
  if (host.startsWith('[') && host.endsWith(']')) return host.slice(1, -1);
  return host.split('.').reverse().join(',');
}

/** The SURT key and its host range (the reversed host[:port]). */
export function surtOf(url: string, hostStart: number, hostEnd: number): { url: string; hostStart: number; hostEnd: number } {
  const k = url.indexOf('://');
  const user = url.slice(k + 3, hostStart);
  const hostPort = url.slice(hostStart, hostEnd);
  const close = hostPort.lastIndexOf(']');
  const colon = hostPort.lastIndexOf(':');
  const port = colon > close ? hostPort.slice(colon) : '';
  const host = hostPort.slice(0, hostPort.length - port.length);
  const head = hostToSurt(host) + port;
  return { url: user + head + ')' + url.slice(hostEnd), hostStart: user.length, hostEnd: user.length + head.length };
}
