import csv, glob, sys, statistics, re, collections
out = sys.argv[1]
# ratio measured/predicted per (np, sync, bytes) over planned algorithms, per run
r = collections.defaultdict(list)
for f in sorted(glob.glob(out + '/np*-*.csv')):
    m = re.search(r'np(\d+)-(\w+)-(\d+)\.csv', f)
    np_, sync = int(m.group(1)), m.group(2)
    for row in csv.DictReader(open(f)):
        if row['predicted_us']:
            r[(np_, sync, row['algorithm'])].append((int(row['bytes']), float(row['median_us']) / float(row['predicted_us']), float(row['median_us']), float(row['predicted_us'])))
for k in sorted(r):
    v = r[k]
    by = collections.defaultdict(list)
    for b, x, meas, pred in v: by[b].append((x, meas, pred))
    print(k, ' '.join('%d:%.2f(%.2f/%.2f)' % (b, statistics.median(t[0] for t in by[b]), statistics.median(t[1] for t in by[b]), statistics.median(t[2] for t in by[b])) for b in sorted(by)))
