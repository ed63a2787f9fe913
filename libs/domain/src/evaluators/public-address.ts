import ipaddr from 'ipaddr.js';

/** RFC 6761: `localhost` and every name under it are loopback, whatever a resolver says. */
const LOCALHOST = /(^|\.)localhost\.?$/i;

/**
 * Whether a URL's host is one an evaluator may not be called at where private networks are
 * off (production): an IP literal in any range but public unicast (loopback, private,
 * link-local and so cloud metadata, carrier-grade NAT, unspecified, IPv4-mapped IPv6, …), the
 * rule request-filtering-agent applies to every address a call connects to (ipaddr.js's
 * `range()`), or `localhost`. The WHATWG parser has already turned `2130706433`, `0177.0.0.1`
 * and the like into dotted decimal. Other host names are not resolved: what a name resolves to
 * can change after it is saved, so the call checks the address it connects to.
 */
export function isNonPublicHost(url: URL): boolean {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (LOCALHOST.test(host)) return true;
  return ipaddr.isValid(host) && ipaddr.parse(host).range() !== 'unicast';
}
