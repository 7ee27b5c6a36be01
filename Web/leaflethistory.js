/*
 * Find Our Devices web map: what the History panel draws on the Leaflet map — a day's
 * timeline (stays as dots, trips as lines), a track over a range of days, and the playback
 * cursor moving along the day's fixes. Each is fitted into view when set (`quiet` keeps such
 * programmatic moves from counting as the user's).
 */
import { unwrapLons } from './geo.js';
import { timelineSegments } from './timelinegeometry.js';

const TRACK_COLOR = '#1a63d8';

/** [[lon, lat], ...] as Leaflet latlngs, unwrapped so a line over the antimeridian stays short. */
function latLngs(coords) {
  const lons = unwrapLons(coords.map((c) => c[0]));
  return coords.map((c, i) => [c[1], lons[i]]);
}

export function createLeafletHistory(L, map, quiet) {
  // Above the pins and their bubbles: what the History panel shows is what the user looks at.
  map.createPane('fod-history').style.zIndex = 440;
  const renderers = { trails: L.svg({ pane: 'fod-history' }), pins: L.svg({ pane: 'fod-history' }) };
  let timelineLayer = null, trackLayer = null, played = null;
  const cursor = L.circleMarker([0, 0], {
    renderer: renderers.pins, radius: 8, color: '#ffffff', weight: 3, fillColor: TRACK_COLOR, fillOpacity: 1, opacity: 0, interactive: false, className: 'playback-cursor',
  });

  const fitTo = (ll) => { if (ll.length) quiet(() => map.fitBounds(L.latLngBounds(ll), { padding: [48, 48], maxZoom: 16, animate: false })); };

  return {
    /** A day of the timeline (GeoJSON stays and trips), fitted; null removes it. */
    setTimeline(features) {
      if (timelineLayer) { timelineLayer.remove(); timelineLayer = null; }
      if (!features) return;
      timelineLayer = L.layerGroup().addTo(map);
      const all = [];
      for (const seg of timelineSegments(features)) {
        if (!seg.coords.length) continue;
        const ll = latLngs(seg.coords);
        all.push(...ll);
        if (seg.type === 'trip') {
          L.polyline(ll, { renderer: renderers.trails, color: '#d98b00', weight: 4, opacity: 0.9, interactive: false, className: 'tl-trip-line' }).addTo(timelineLayer);
        } else {
          L.circleMarker(ll[0], { renderer: renderers.pins, radius: 7, color: '#fff', weight: 2, fillColor: '#1f6feb', fillOpacity: 1, interactive: false, className: 'tl-stay-dot' }).addTo(timelineLayer);
        }
      }
      fitTo(all);
    },

    /** Fits the view to one timeline feature. */
    focusTimeline(feature) {
      const seg = feature && timelineSegments([feature])[0];
      if (seg && seg.coords.length) fitTo(latLngs(seg.coords));
    },

    /** A track: lines of [lon, lat] (one per device or part), fitted; null removes it. */
    setTrack(lines) {
      if (trackLayer) { trackLayer.remove(); trackLayer = null; }
      if (!lines) return;
      trackLayer = L.layerGroup().addTo(map);
      const all = [];
      for (const line of lines) {
        if (!line.length) continue;
        const ll = latLngs(line);
        all.push(...ll);
        L.polyline(ll, { renderer: renderers.trails, color: TRACK_COLOR, weight: 4, opacity: 0.85, interactive: false, className: 'history-track' }).addTo(trackLayer);
        if (ll.length === 1) L.circleMarker(ll[0], { renderer: renderers.pins, radius: 4, color: TRACK_COLOR, weight: 2, fillOpacity: 0.6, interactive: false, className: 'history-fix' }).addTo(trackLayer);
      }
      fitTo(all);
    },

    /**
     * The playback cursor at `lonLat` with the part of the day already played (`path`, [lon,
     * lat] oldest first) drawn behind it; null hides both. Keeps the cursor in view.
     */
    setCursor(lonLat, path) {
      if (!lonLat) {
        cursor.remove();
        if (played) { played.remove(); played = null; }
        return;
      }
      const ll = [lonLat[1], lonLat[0]];
      cursor.setLatLng(ll);
      cursor.setStyle({ opacity: 1 });
      if (!map.hasLayer(cursor)) cursor.addTo(map);
      const pts = path && path.length ? latLngs(path) : [];
      if (!played) played = L.polyline(pts, { renderer: renderers.trails, color: TRACK_COLOR, weight: 5, opacity: 0.9, interactive: false, className: 'playback-path' }).addTo(map);
      else played.setLatLngs(pts);
      const e = cursor.getElement();
      if (e) { e.setAttribute('data-lon', String(lonLat[0])); e.setAttribute('data-lat', String(lonLat[1])); }
      if (!map.getBounds().pad(-0.1).contains(ll)) quiet(() => map.panTo(ll, { animate: false }));
    },
  };
}
