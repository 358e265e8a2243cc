#!/usr/bin/env python3
"""Writes a SimGrid platform (XML, version 4.1) and a hostfile for smpirun.

  platform.py homo HOSTS LATENCY BANDWIDTH PREFIX    one switch, every node on a private link of that latency
                                                     and bandwidth (e.g. 1us 10Gbps)
  platform.py racks HOSTS RACKS PREFIX               RACKS racks whose node links differ: 10Gbps/1us, 1Gbps/10us,
                                                     500Mbps/50us, 100Mbps/100us, cycled; racks joined by a core
                                                     switch (40Gbps, 5us)
  platform.py slowpairs HOSTS LATENCY BANDWIDTH RATIO PREFIX
                                                     every node on a private link of that latency and bandwidth;
                                                     node 0 (rank 0) reaches every other node through the links
                                                     alone, two other nodes also through a link of their own,
                                                     RATIO times slower: a platform where no single tree reaches the
                                                     best throughput of a series of reductions to rank 0
  platform.py racks-costs HOSTS RACKS BYTES C OUT  the racks platform's own costs for one vector of BYTES, as a
                                                     redux-plan --costs file (c = C seconds on every rank): what the
                                                     per-link plans would be given, for the model's answer beyond
                                                     the nodes libredux measures pair by pair

Writes PREFIX.xml and PREFIX.hosts. The racks' hostfile deals the ranks round-robin over the racks, so that
consecutive ranks sit on different kinds of node (a rank order that knows nothing of the network, as an MPI
library's default placement often does).

The network is the one the cost model assumes, so that under SimGrid's plain latency/bandwidth model (CM02)
measured time can be held against predicted time: each node's link is split-duplex (it sends and receives at
full speed at once) and every switch is non-blocking (FATPIPE: each flow gets the switch's full bandwidth, so
the switch is never the bottleneck). A message from a to b then takes lat_a + lat_switch + lat_b plus its bytes
over min(bw_a, bw_b); messages that share a node's link in one direction share its bandwidth.
"""
import json
import sys

RACK_KINDS = [("10Gbps", "1us"), ("1Gbps", "10us"), ("500Mbps", "50us"), ("100Mbps", "100us")]


def cluster(name, hosts, bandwidth, latency):
    return ('  <cluster id="%s" prefix="%s-" suffix="" radical="0-%d" speed="1Gf" core="1" bw="%s" lat="%s" '
            'sharing_policy="SPLITDUPLEX" bb_bw="1000Gbps" bb_lat="0us" bb_sharing_policy="FATPIPE" '
            'router_id="%s-router"/>' % (name, name, hosts - 1, bandwidth, latency, name))


def write(prefix, body, hosts):
    head = ["<?xml version='1.0'?>", '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">',
            '<platform version="4.1">']
    with open(prefix + ".xml", "w") as out:
        out.write("\n".join(head + body + ["</platform>"]) + "\n")
    with open(prefix + ".hosts", "w") as out:
        out.write("\n".join(hosts) + "\n")


def homo(hosts, latency, bandwidth, prefix):
    write(prefix, [cluster("node", hosts, bandwidth, latency)], ["node-%d" % i for i in range(hosts)])


def racks(hosts, count, prefix):
    sizes = [hosts // count + (1 if r < hosts % count else 0) for r in range(count)]
    body = ['<zone id="world" routing="Full">']
    for r, size in enumerate(sizes):
        bandwidth, latency = RACK_KINDS[r % len(RACK_KINDS)]
        body.append(cluster("rack%d" % r, size, bandwidth, latency))
    body.append('  <link id="core" bandwidth="40Gbps" latency="5us" sharing_policy="FATPIPE"/>')
    for a in range(count):
        for b in range(a + 1, count):
            body.append('  <zoneRoute src="rack%d" dst="rack%d" gw_src="rack%d-router" gw_dst="rack%d-router">'
                        '<link_ctn id="core"/></zoneRoute>' % (a, b, a, b))
    body.append("</zone>")
    order, taken, r = [], [0] * count, 0
    while len(order) < hosts:
        if taken[r] < sizes[r]:
            order.append("rack%d-%d" % (r, taken[r]))
            taken[r] += 1
        r = (r + 1) % count
    write(prefix, body, order)


def seconds(text):
    for unit, scale in (("us", 1e-6), ("ms", 1e-3), ("s", 1.0)):
        if text.endswith(unit):
            return float(text[:-len(unit)]) * scale
    raise ValueError(text)


def bits_per_s(text):
    for unit, scale in (("Gbps", 1e9), ("Mbps", 1e6)):
        if text.endswith(unit):
            return float(text[:-len(unit)]) * scale
    raise ValueError(text)


def racks_costs(hosts, count, size, compute_s, out):
    """Rank r sits in rack r % count (racks() deals them round-robin); a message between racks also crosses the
    core switch (5 us), one within a rack only the two node links."""
    kinds = [(bits_per_s(bw), seconds(lat)) for bw, lat in RACK_KINDS]

    def transfer(a, b):
        (bw_a, lat_a), (bw_b, lat_b) = kinds[a % len(kinds)], kinds[b % len(kinds)]
        return lat_a + lat_b + (5e-6 if a != b else 0) + size * 8 / min(bw_a, bw_b)

    with open(out, "w") as f:
        json.dump({"c": [compute_s] * hosts, "class_of": [r % count for r in range(hosts)],
                   "d_class": [[transfer(a, b) for b in range(count)] for a in range(count)]}, f)


def slowpairs(hosts, latency, bandwidth, ratio, prefix):
    number, unit = float(bandwidth.rstrip("GMkbps")), bandwidth.lstrip("0123456789.")
    body = ['<zone id="world" routing="Full">']
    body += ['  <host id="node-%d" speed="1Gf"/>' % i for i in range(hosts)]
    body += ['  <link id="l%d" bandwidth="%s" latency="%s" sharing_policy="SPLITDUPLEX"/>' % (i, bandwidth, latency)
             for i in range(hosts)]
    for a in range(1, hosts):
        for b in range(a + 1, hosts):
            body.append('  <link id="p%d-%d" bandwidth="%g%s" latency="0us" sharing_policy="SPLITDUPLEX"/>'
                        % (a, b, number / ratio, unit))
    for a in range(hosts):
        for b in range(hosts):
            if a == b:
                continue
            links = ['<link_ctn id="l%d" direction="UP"/>' % a]
            if a != 0 and b != 0:
                links.append('<link_ctn id="p%d-%d" direction="%s"/>' % (min(a, b), max(a, b), "UP" if a < b else "DOWN"))
            links.append('<link_ctn id="l%d" direction="DOWN"/>' % b)
            body.append('  <route src="node-%d" dst="node-%d" symmetrical="NO">%s</route>' % (a, b, "".join(links)))
    body.append("</zone>")
    write(prefix, body, ["node-%d" % i for i in range(hosts)])


if __name__ == "__main__":
    if len(sys.argv) == 6 and sys.argv[1] == "homo":
        homo(int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5])
    elif len(sys.argv) == 7 and sys.argv[1] == "slowpairs":
        slowpairs(int(sys.argv[2]), sys.argv[3], sys.argv[4], float(sys.argv[5]), sys.argv[6])
    elif len(sys.argv) == 7 and sys.argv[1] == "racks-costs":
        racks_costs(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]), sys.argv[6])
    elif len(sys.argv) == 5 and sys.argv[1] == "racks":
        racks(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
    else:
        sys.exit(__doc__)
