#!/usr/bin/env python3
"""Unit checks of the web app's pure modules, run in headless Chromium on the served files (the
page's own ES modules, imported as the page imports them, under its CSP): clustering, playback,
the phone set-up links, the QR encoder's input and path, the download formats, and the words the
panels use. Each case is [name, got, want]; the check fails on any difference.
  units.py --base URL"""
import argparse
import json
import sys

from cdp import Browser, CheckFailed, SetupFailed, find_chromium

CASES = r'''(async () => {
  const [cluster, playback, setup, qr, formats, format, importer, places] = await Promise.all([
    import('/static/cluster.js'), import('/static/playback.js'), import('/static/phonesetup.js'), import('/static/qr.js'),
    import('/static/exportformats.js'), import('/static/format.js'), import('/static/historyimport.js'), import('/static/places.js')]);
  const cases = [];
  const eq = (name, got, want) => cases.push([name, got, want]);

  // Clustering: close pins group, far ones stay alone, a kept one never joins.
  const pts = [{id: 'a', x: 0, y: 0}, {id: 'b', x: 10, y: 5}, {id: 'c', x: 500, y: 500}, {id: 'd', x: 12, y: 0}];
  const c1 = cluster.clusterPoints(pts, 34);
  eq('cluster: close pins', c1.clusters.map((c) => c.ids.sort().join()), ['a,b,d']);
  eq('cluster: a far pin alone', c1.singles, ['c']);
  eq('cluster: centre is the mean', [Math.round(c1.clusters[0].x), Math.round(c1.clusters[0].y)], [7, 2]);
  const c2 = cluster.clusterPoints(pts, 34, new Set(['b']));
  eq('cluster: the focused pin never joins', [c2.clusters.map((c) => c.ids.sort().join()), c2.singles.sort()], [['a,d'], ['b', 'c']]);
  const many = cluster.clusterPoints(Array.from({length: 300}, (_, i) => ({id: 'p' + i, x: (i * 37) % 900, y: (i * 53) % 700})), 34);
  const ids = many.singles.concat(...many.clusters.map((c) => c.ids));
  eq('cluster: every id once', [ids.length, new Set(ids).size, many.clusters.every((c) => c.ids.length >= 2)], [300, 300, true]);
  eq('cluster: labels', [cluster.clusterLabel(7), cluster.clusterLabel(150)], ['7', '99+']);

  // Playback: positions between fixes, clamped ends, the antimeridian, the travelled path.
  const track = playback.trackOf([{location: [2, 2], timestamp: '2026-01-01T00:02:00Z'}, {location: [0, 0], timestamp: '2026-01-01T00:00:00Z'},
    {location: [1, 1], timestamp: 'bad'}, {location: [179, 0], timestamp: '2026-01-01T00:04:00Z'}, {location: [-179, 0], timestamp: '2026-01-01T00:06:00Z'}]);
  const t0 = Date.parse('2026-01-01T00:00:00Z');
  eq('playback: sorted valid fixes', track.coords, [[0, 0], [2, 2], [179, 0], [-179, 0]]);
  eq('playback: halfway', playback.positionAt(track, t0 + 60000), [1, 1]);
  eq('playback: before the start', playback.positionAt(track, t0 - 1), [0, 0]);
  eq('playback: after the end', playback.positionAt(track, t0 + 3600000), [-179, 0]);
  eq('playback: over the antimeridian', playback.positionAt(track, t0 + 300000), [-180, 0]);
  eq('playback: the path so far', playback.pathUntil(track, t0 + 60000), [[0, 0], [1, 1]]);
  eq('playback: slider time', playback.timeAt(track, 0.5), t0 + 180000);

  // Phone set-up: the OwnTracks link holds the configuration; Overland and Traccar Client URLs.
  const dev = {origin: 'https://fod.example', deviceId: 'd_1', deviceToken: 'fodd_a+b/c=', deviceName: "Ann's phone"};
  const link = setup.owntracksLink(setup.owntracksConfig(dev));
  const inline = decodeURIComponent(link.split('inline=')[1]);
  eq('set-up: OwnTracks link', JSON.parse(new TextDecoder().decode(Uint8Array.from(atob(inline), (ch) => ch.charCodeAt(0)))),
    {_type: 'configuration', mode: 3, url: 'https://fod.example/v1/ingest/owntracks', auth: true, username: 'd_1', password: 'fodd_a+b/c=', tid: 'AP'});
  eq('set-up: the link is one URL-safe string', /^owntracks:\/\/\/config\?inline=[A-Za-z0-9%._-]+$/.test(link), true);
  const ov = new URL(setup.overlandLink(dev));
  eq('set-up: Overland', [ov.protocol, ov.host, ov.searchParams.get('url'), ov.searchParams.get('token'), ov.searchParams.get('device_id')],
    ['overland:', 'setup', 'https://fod.example/v1/ingest/overland', 'fodd_a+b/c=', "Ann's phone"]);
  const tc = new URL(setup.traccarURL(dev));
  eq('set-up: Traccar Client', [tc.origin + tc.pathname, tc.searchParams.get('id')], ['https://fod.example/v1/ingest/osmand', 'fodd_a+b/c=']);
  eq('set-up: tracker ids', ['Ann\'s phone', 'x', '', 'Ölaf'].map(setup.trackerId), ['AP', 'XF', 'FD', 'LA']);

  // QR: UTF-8 bytes in, runs of dark modules out (offset by the quiet zone of 4).
  eq('qr: UTF-8 bytes', Array.from(qr.utf8Binary('aé€'), (ch) => ch.charCodeAt(0)), [0x61, 0xc3, 0xa9, 0xe2, 0x82, 0xac]);
  eq('qr: module path', qr.modulesPath(3, (r, c) => r === 1 && c !== 1), 'M4 5h1v1h-1zM6 5h1v1h-1z');

  // Downloads made in the browser.
  eq('csv from ndjson', formats.ndjsonToCSV('{"location":[1.5,2],"timestamp":"T","accuracy":3,"id":"a,\\"b"}\n\nnot json\n'),
    'deviceId,longitude,latitude,timestamp,accuracy,altitude,speed,heading,battery,id\r\n,1.5,2,T,3,,,,,"a,""b"\r\n');
  const gpx = formats.geojsonToGPX({features: [{geometry: {type: 'LineString', coordinates: [[1, 2], [3, 4]]}, properties: {deviceName: 'A<&>"', coordTimes: ['T1', null]}},
    {geometry: {type: 'Point', coordinates: [0, 0]}, properties: {}}]});
  eq('gpx: names escaped, one track, times kept', [gpx.includes('<name>A&lt;&amp;&gt;&quot;</name>'), (gpx.match(/<trk>/g) || []).length,
    gpx.includes('<trkpt lat="2" lon="1"><time>T1</time></trkpt>'), gpx.includes('<trkpt lat="4" lon="3"></trkpt>')], [true, 1, true, true]);
  eq('track lines of an export', formats.geojsonLines({features: [{geometry: {type: 'MultiLineString', coordinates: [[[0, 0], [1, 1]], [[2, 2]]]}},
    {geometry: {type: 'Point', coordinates: [5, 5]}, properties: {kind: 'fix'}}, {geometry: {type: 'Point', coordinates: [6, 6]}, properties: {kind: 'position'}}]}),
    [[[0, 0], [1, 1]], [[2, 2]], [[5, 5]]]);

  // Words.
  const now = Date.parse('2026-01-01T12:00:00Z');
  eq('expiry', [format.expiryText('2026-01-01T12:42:10Z', now), format.expiryText('2026-01-01T15:05:00Z', now), format.expiryText('2026-01-01T11:00:00Z', now)],
    ['expires in 42 min', 'expires in 3 h 5 min', 'expired']);
  eq('battery', [format.batteryText(80.4), format.batteryText(null)], ['Battery 80 %', '']);
  eq('date inputs', format.dateInputValue(format.dateInputTime('2026-03-09')), '2026-03-09');
  eq('import summary', importer.importSummary({format: 'gpx', accepted: 40, duplicates: 2, rejected: 1}), 'Imported 40 new positions, 2 already there, 1 not usable (gpx).');
  eq('who is inside', [places.insideText([]), places.insideText(['a', 'b', 'c', 'd', 'e', 'f', 'g'])], ['nobody inside', 'inside: a, b, c, d, e and 2 more']);

  return cases;
})()'''


# On the app's page (an HTML document: the map's controls need one), before anyone signs in.
MAP_CASES = r'''(async () => {
  const cases = [];
  const eq = (name, got, want) => cases.push([name, got, want]);
  // The built-in map: the focused pin stays on top, also of a device located after the focus.
  const { createSvgMap } = await import('/static/svgmap.js');
  const box = document.createElement('div');
  document.body.appendChild(box);
  const dev = (id, lon) => ({deviceId: id, located: true, lon: lon, lat: 40.7, color: '#345', deviceName: id});
  const svgMap = createSvgMap(box, {});
  svgMap.sync([dev('a', -74.01), dev('b', -74.02)]);
  svgMap.setFocus('a');
  svgMap.sync([dev('a', -74.01), dev('b', -74.02), dev('c', -74.01)]);
  const topPin = () => { const pins = box.querySelectorAll('.pins .pin'); return pins[pins.length - 1].getAttribute('data-device-id'); };
  eq('map: the focused pin on top of one located later', [box.querySelectorAll('.pins .pin').length, topPin()], [3, 'a']);
  box.remove();
  return cases;
})()'''


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--base', required=True)
    a = ap.parse_args()
    b = Browser(find_chromium(None), 800, 600)
    try:
        b.send('Runtime.enable')
        b.send('Page.navigate', {'url': a.base.rstrip('/') + '/static/icon.svg'})
        b.wait_for('document.readyState === "complete"', 20, 'a page of the server')
        cases = b.eval(CASES)
        b.send('Page.navigate', {'url': a.base.rstrip('/') + '/'})
        b.wait_for('document.readyState === "complete"', 20, 'the app\'s page')
        cases += b.eval(MAP_CASES)
        failed = [c for c in cases if json.dumps(c[1], sort_keys=True) != json.dumps(c[2], sort_keys=True)]
        for name, got, want in failed:
            print('units: %s: got %s, want %s' % (name, json.dumps(got), json.dumps(want)), file=sys.stderr)
        print('units: %d passed, %d failed' % (len(cases) - len(failed), len(failed)), flush=True)
        return 1 if failed else 0
    except (CheckFailed, SetupFailed) as e:
        print('units could not run: %s' % e, file=sys.stderr)
        return 2
    finally:
        b.close()


if __name__ == '__main__':
    sys.exit(main())
