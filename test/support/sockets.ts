import { readdirSync, readFileSync, readlinkSync } from "node:fs";

export type TcpPeer = { remoteAddress: string; remotePort: number; state: string };

/** hex "0100007F" (little-endian IPv4) or 32-hex IPv6 → printable address. */
function decodeAddress(hex: string): string {
  if (hex.length === 8) return hex.match(/../g)!.reverse().map((b) => parseInt(b, 16)).join(".");
  const words = hex.match(/.{8}/g)!.map((w) => w.match(/../g)!.reverse().join(""));
  const full = words.join("");
  if (full.startsWith("00000000000000000000ffff")) return decodeAddress(hex.slice(24));
  return full.match(/.{4}/g)!.join(":");
}

/**
 * Every TCP socket the process holds, with its remote end (Linux /proc). A socket to anything
 * but loopback means the process talked to the network.
 */
export function tcpPeersOf(pid: number): TcpPeer[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (match) inodes.add(match[1]!);
    } catch {
      // fd closed while listing
    }
  }
  const peers: TcpPeer[] = [];
  for (const table of ["tcp", "tcp6"]) {
    const lines = readFileSync(`/proc/${pid}/net/${table}`, "utf8").trim().split("\n").slice(1);
    for (const line of lines) {
      const cols = line.trim().split(/\s+/);
      if (!inodes.has(cols[9]!)) continue;
      const [remoteHex, portHex] = cols[2]!.split(":");
      peers.push({ remoteAddress: decodeAddress(remoteHex!), remotePort: parseInt(portHex!, 16), state: cols[3]! });
    }
  }
  return peers;
}

export function isLoopbackOrUnconnected(peer: TcpPeer): boolean {
  return peer.remotePort === 0 || peer.remoteAddress.startsWith("127.") || peer.remoteAddress === "0000:0000:0000:0000:0000:0000:0000:0001";
}
