import ipaddr from 'ipaddr.js';

/**
 * The address an ingest limit counts a request against: Fastify's `request.ip`, which honours
 * TRUST_PROXY (app.ts). An IPv6 client gets a whole /64 from its provider and may pick any
 * address in it, so IPv6 addresses count per /64 (`2001:db8:1:2::/64`); an IPv4-mapped IPv6
 * address counts as its IPv4 address. ipaddr.js (already Fastify's, through proxy-addr) parses
 * IPv6's many spellings; IPv4, most clients, is returned as it is without parsing.
 */
export function clientAddress(ip: string): string {
  if (!ip.includes(':')) return ip;
  if (!ipaddr.IPv6.isValid(ip)) return ip;
  const address = ipaddr.IPv6.parse(ip);
  if (address.isIPv4MappedAddress()) return address.toIPv4Address().toString();
  const prefix = address.parts.slice(0, 4).map((part) => part.toString(16));
  return `${ipaddr.IPv6.parse(`${prefix.join(':')}::`).toString()}/64`;
}
