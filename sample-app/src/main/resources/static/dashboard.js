// The lease dashboard: polls /actuator/leases and /api/timeline every second, counts the
// remaining TTL down between polls, and draws each lease's remaining TTL with its events;
// a certificate is a lease too: its life runs to its notAfter and each re-issue is a rotation.
(function () {
	'use strict';
	const COLORS = { renewed: '#1a7f37', ceiling: '#e08a00', rotated: '#1f5fbf', lost: '#c62828' };
	const WINDOW_MS = 5 * 60 * 1000;
	let leases = [];
	let timeline = { samples: {}, events: [] };
	let offsetMs = 0; // engine time minus page time

	function engineNow() {
		return Date.now() + offsetMs;
	}

	function seconds(ms) {
		if (ms === null || ms === undefined || isNaN(ms)) {
			return '–';
		}
		return (Math.max(0, ms) / 1000).toFixed(1) + ' s';
	}

	function text(tag, value, className) {
		const cell = document.createElement(tag);
		cell.textContent = value;
		if (className) {
			cell.className = className;
		}
		return cell;
	}

	function renderTable() {
		const body = document.querySelector('#leases tbody');
		const now = engineNow();
		body.replaceChildren(...leases.map((lease) => {
			const row = document.createElement('tr');
			row.dataset.lease = lease.name;
			row.append(text('td', lease.name, 'name'), text('td', lease.kind),
				text('td', lease.state, 'state state-' + lease.state),
				text('td', String(lease.generation), 'generation'),
				text('td', lease.expiresAt ? seconds(Date.parse(lease.expiresAt) - now) : 'never', 'remaining'),
				text('td', lease.nextRenewalAt ? 'in ' + seconds(Date.parse(lease.nextRenewalAt) - now) : '–', 'next'),
				text('td', lease.lastOutcome || '–'),
				text('td', lease.ceiling ? new Date(lease.ceiling).toLocaleTimeString() : '–'),
				text('td', lease.serialNumber ? 'serial ' + lease.serialNumber.slice(0, 11) + '…, valid until '
					+ new Date(lease.notAfter).toLocaleTimeString() : '–', 'certificate'));
			return row;
		}));
	}

	function chartFor(name) {
		let chart = document.getElementById('chart-' + name);
		if (!chart) {
			chart = document.createElement('div');
			chart.className = 'chart';
			chart.id = 'chart-' + name;
			chart.append(text('h3', name));
			const canvas = document.createElement('canvas');
			canvas.width = 900;
			canvas.height = 160;
			chart.append(canvas);
			document.getElementById('charts').append(chart);
		}
		return chart.querySelector('canvas');
	}

	function renderCharts() {
		const now = engineNow();
		Object.entries(timeline.samples).forEach(([name, samples]) => {
			const canvas = chartFor(name);
			const g = canvas.getContext('2d');
			const w = canvas.width, h = canvas.height, left = 44, bottom = 18;
			g.clearRect(0, 0, w, h);
			const values = samples.filter((s) => s.remaining !== null);
			const max = Math.max(10, ...values.map((s) => s.remaining));
			const x = (t) => left + (w - left - 4) * (1 - (now - t) / WINDOW_MS);
			const y = (v) => 4 + (h - bottom - 8) * (1 - v / max);
			g.strokeStyle = '#c9ced6';
			g.fillStyle = '#5b6673';
			g.font = '11px system-ui';
			[0, max / 2, max].forEach((v) => {
				g.beginPath(); g.moveTo(left, y(v)); g.lineTo(w - 4, y(v)); g.stroke();
				g.fillText(Math.round(v) + ' s', 2, y(v) + 4);
			});
			for (let m = 0; m <= 5; m++) {
				g.fillText(m === 0 ? 'now' : '-' + m + ' min', x(now - m * 60000) - 14, h - 4);
			}
			g.strokeStyle = '#1d2733';
			g.lineWidth = 1.5;
			g.beginPath();
			let drawing = false;
			samples.forEach((s) => {
				const t = Date.parse(s.at);
				if (s.remaining === null || now - t > WINDOW_MS) {
					drawing = false;
					return;
				}
				if (drawing) {
					g.lineTo(x(t), y(s.remaining));
				}
				else {
					g.moveTo(x(t), y(s.remaining));
					drawing = true;
				}
			});
			g.stroke();
			g.lineWidth = 1;
			timeline.events.filter((e) => e.lease === name && now - Date.parse(e.at) <= WINDOW_MS).forEach((e) => {
				const ex = x(Date.parse(e.at));
				g.strokeStyle = g.fillStyle = COLORS[e.type] || '#000';
				if (e.type === 'renewed') {
					g.beginPath(); g.arc(ex, 8, 3, 0, 2 * Math.PI); g.fill();
				}
				else {
					g.setLineDash(e.type === 'ceiling' ? [4, 3] : []);
					g.beginPath(); g.moveTo(ex, 4); g.lineTo(ex, h - bottom); g.stroke();
					g.setLineDash([]);
					if (e.type === 'rotated') {
						g.fillText('gen ' + e.generation, ex + 3, 14);
					}
				}
			});
		});
	}

	function renderEvents() {
		const list = document.getElementById('events');
		list.replaceChildren(...timeline.events.slice().reverse().slice(0, 60).map((e) =>
			text('li', new Date(Date.parse(e.at)).toLocaleTimeString() + '  ' + e.lease + '  ' + e.type + '  '
				+ e.detail, 'type-' + e.type)));
	}

	async function poll() {
		try {
			const [leasesResponse, timelineResponse, statsResponse] = await Promise.all([
				fetch('actuator/leases'), fetch('api/timeline'), fetch('api/orders/stats')]);
			leases = (await leasesResponse.json()).leases;
			timeline = await timelineResponse.json();
			offsetMs = Date.parse(timeline.now) - Date.now();
			const stats = await statsResponse.json();
			document.getElementById('worker').textContent = stats.created + ' orders created, ' + stats.processed
				+ ' processed, ' + stats.failedQueries + ' failed queries; current database user: '
				+ (stats.databaseUser || '–');
			document.getElementById('status').textContent = 'live · updated ' + new Date().toLocaleTimeString();
			renderEvents();
		}
		catch (error) {
			document.getElementById('status').textContent = 'cannot reach the application: ' + error;
		}
	}

	poll();
	setInterval(poll, 1000);
	setInterval(() => { renderTable(); renderCharts(); }, 250);
})();
