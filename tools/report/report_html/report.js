/*
 * report.js - draws `trms report --html` in the browser from the report's
 * JSON (docs/report-json.md), placed in the page as #report-data: the
 * summary table, per region its plots, and the icicle of the sampled
 * calling context tree.  Every plot is SVG drawn here; nothing is fetched.
 *
 * Data points carry data-n and data-series, plots data-plot and the
 * icicle's nodes data-node and data-kind: tests/html/check_page.py reads
 * them from the rendered page.
 */
(function () {
	'use strict';

	/* ---- errors: shown on the page and marked for tests -------------- */

	const errors = [];

	function noteError(message) {
		errors.push(message);
		document.documentElement.setAttribute('data-errors',
						      String(errors.length));
		const box = document.getElementById('page-errors');
		if (!box)
			return;
		box.hidden = false;
		const item = document.createElement('li');
		item.textContent = message;
		box.querySelector('ul').appendChild(item);
	}

	window.addEventListener('error', function (e) {
		const where = e.filename ? ' (' + e.filename + ':' + e.lineno + ')'
					 : '';
		noteError((e.message || 'an element failed to load') + where);
	}, true);
	window.addEventListener('unhandledrejection', function (e) {
		noteError('unhandled rejection: ' + String(e.reason));
	});

	/* The SVG namespace, from an <svg> the HTML parser made: the page
	 * then holds no URL at all. */
	const SVG_NS = document.getElementById('svg-namespace').namespaceURI;

	let report;
	try {
		report = JSON.parse(
			document.getElementById('report-data').textContent);
	} catch (e) {
		noteError('the report in this page cannot be read: ' + e.message);
		return;
	}

	const unit = report.unit || 'events';
	const metric = report.size_metric === 'rms' ? 'rms' : 'trms';
	const stat = ['worst', 'mean', 'best'].indexOf(report.cost_statistic) >= 0
		? report.cost_statistic : 'worst';
	const regions = Array.isArray(report.regions) ? report.regions : [];

	/* ---- growth classes ----------------------------------------------- */

	const FITTED = ['1', 'log n', 'sqrt n', 'n', 'n log n', 'n^1.5', 'n^2',
			'n^2 log n', 'n^3'];
	const GROWTH_ORDER = FITTED.concat(['exp', 'insufficient']);

	/* g(n) as tools/growth/growth.c computes it: the natural logarithm, 0 at
	 * n <= 1. */
	function logOf(n) {
		return n > 1 ? Math.log(n) : 0;
	}

	const G = {
		'1': () => 1,
		'log n': (n) => logOf(n),
		'sqrt n': (n) => Math.sqrt(n),
		'n': (n) => n,
		'n log n': (n) => n * logOf(n),
		'n^1.5': (n) => n * Math.sqrt(n),
		'n^2': (n) => n * n,
		'n^2 log n': (n) => n * n * logOf(n),
		'n^3': (n) => n * n * n,
	};

	function growthClass(name) {
		const i = GROWTH_ORDER.indexOf(name);
		if (i < 0 || name === 'insufficient')
			return 'growth-none';
		return i <= 3 ? 'growth-good' : i <= 5 ? 'growth-warn'
						   : 'growth-bad';
	}

	/* A region whose costs could not be told apart from the error of
	 * their correction (docs/cost.md) is "unresolved", as in the table. */
	function unresolved(g) {
		return !!(g.correction && g.correction.refused);
	}

	function growthText(g) {
		if (unresolved(g))
			return 'unresolved';
		return Array.isArray(g.growth_range) && g.growth_range.length === 2
			? g.growth_range[0] + '...' + g.growth_range[1] : g.growth;
	}

	/* ---- numbers as people read them ---------------------------------- */

	function finite(v) {
		return typeof v === 'number' && isFinite(v);
	}

	function trimZeros(text) {
		return text.indexOf('e') < 0 && text.indexOf('.') >= 0
			? text.replace(/\.?0+$/, '') : text;
	}

	const SUFFIXES = [[1e15, 'P'], [1e12, 'T'], [1e9, 'G'], [1e6, 'M'],
			  [1e3, 'k']];

	/* 3 significant digits and a k/M/G suffix: for axes. */
	function compact(v) {
		if (!finite(v))
			return '\u2013';
		v = Number(v.toPrecision(3));
		const a = Math.abs(v);
		if (a === 0)
			return '0';
		for (const [scale, suffix] of SUFFIXES)
			if (a >= scale)
				return trimZeros((v / scale).toPrecision(3)) + suffix;
		if (a < 1e-3)
			return v.toExponential(1);
		return trimZeros(v.toPrecision(3));
	}

	/* One formatter: making one per number is slow. */
	const GROUPING = new Intl.NumberFormat('en-US',
					       { maximumFractionDigits: 0 });

	function grouped(v) {
		return finite(v) ? GROUPING.format(Math.round(v)) : '\u2013';
	}

	const NS_UNITS = [[1e9, 's'], [1e6, 'ms'], [1e3, '\u00b5s'], [1, 'ns']];

	/* A cost like the terminal table's: "812 ns", "8.01 ms", or a count
	 * of events; @short: for an axis. */
	function formatCost(v, short) {
		if (!finite(v))
			return '\u2013';
		if (unit !== 'ns')
			return short ? compact(v)
				     : Math.abs(v) < 1e15 ? grouped(v)
							  : v.toPrecision(3);
		let i = 0;
		while (i + 1 < NS_UNITS.length && Math.abs(v) < NS_UNITS[i][0])
			i++;
		const x = v / NS_UNITS[i][0];
		const digits = short || !(x >= 100 || i === 3)
			? trimZeros(x.toPrecision(3)) : x.toFixed(0);
		return digits + ' ' + NS_UNITS[i][1];
	}

	function percent(v) {
		return finite(v) ? (100 * v).toFixed(1) + '%' : '\u2013';
	}

	function signed(v) {
		return finite(v) ? (v >= 0 ? '+' : '') + v.toFixed(2) : '\u2013';
	}

	function fixed(v, digits) {
		return finite(v) ? v.toFixed(digits) : '\u2013';
	}

	function number(v) {
		return finite(v) ? trimZeros(v.toPrecision(4)) : '\u2013';
	}

	/* ---- building elements -------------------------------------------- */

	function setAttributes(e, attrs) {
		for (const key in attrs) {
			const v = attrs[key];
			if (v === null || v === undefined || v === false)
				continue;
			if (key === 'text')
				e.textContent = v;
			else if (key.startsWith('on'))
				e.addEventListener(key.slice(2), v);
			else
				e.setAttribute(key, v === true ? '' : String(v));
		}
	}

	function appendAll(e, kids) {
		if (kids === null || kids === undefined)
			return e;
		for (const kid of Array.isArray(kids) ? kids : [kids]) {
			if (kid === null || kid === undefined || kid === false)
				continue;
			e.appendChild(typeof kid === 'string' || typeof kid === 'number'
				? document.createTextNode(String(kid)) : kid);
		}
		return e;
	}

	function html(tag, attrs, kids) {
		const e = document.createElement(tag);
		setAttributes(e, attrs || {});
		return appendAll(e, kids);
	}

	function svg(tag, attrs, kids) {
		const e = document.createElementNS(SVG_NS, tag);
		setAttributes(e, attrs || {});
		return appendAll(e, kids);
	}

	function tooltip(text) {
		return svg('title', { text: text });
	}

	/* Pixels with one decimal: smaller pages, same picture. */
	function px(v) {
		return Math.round(v * 10) / 10;
	}

	/* ---- scales and ticks --------------------------------------------- */

	function niceStep(raw) {
		const p = Math.pow(10, Math.floor(Math.log10(raw)));
		const f = raw / p;
		return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
	}

	function linearTicks(lo, hi, count) {
		const step = niceStep((hi - lo) / count);
		const ticks = [];
		for (let v = Math.ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9;
		     v += step)
			ticks.push(Math.abs(v) < step * 1e-9 ? 0 : v);
		return ticks;
	}

	function logTicks(l0, l1) {
		const first = Math.ceil(l0 - 1e-9), last = Math.floor(l1 + 1e-9);
		const decades = last - first + 1;
		let ticks = [];
		if (decades >= 1) {
			const step = Math.max(1, Math.ceil(decades / 7));
			for (let k = first; k <= last; k += step)
				ticks.push(Math.pow(10, k));
		}
		if (ticks.length < 3) {
			for (let k = Math.floor(l0); k <= Math.ceil(l1); k++)
				for (const m of [2, 5]) {
					const v = m * Math.pow(10, k);
					const l = Math.log10(v);
					if (l >= l0 - 1e-9 && l <= l1 + 1e-9)
						ticks.push(v);
				}
			ticks.sort((a, b) => a - b);
		}
		if (ticks.length < 2)
			ticks = linearTicks(Math.pow(10, l0), Math.pow(10, l1), 4)
				.filter((v) => v > 0);
		return ticks;
	}

	/* A scale from the values to the pixels r0 ... r1: "log" or "linear";
	 * @zero: a linear scale starts at 0. */
	function makeScale(kind, values, r0, r1, zero) {
		let lo = Infinity, hi = -Infinity;
		for (const v of values) {
			if (v < lo)
				lo = v;
			if (v > hi)
				hi = v;
		}
		if (kind === 'log') {
			let l0 = Math.log10(lo), l1 = Math.log10(hi);
			if (l1 - l0 < 1e-9) {
				l0 -= 0.5;
				l1 += 0.5;
			}
			const pad = (l1 - l0) * 0.05;
			l0 -= pad;
			l1 += pad;
			return {
				kind: kind,
				lo: Math.pow(10, l0),
				hi: Math.pow(10, l1),
				map: (v) => r0 + (Math.log10(v) - l0) / (l1 - l0) *
					    (r1 - r0),
				ticks: logTicks(l0, l1),
			};
		}
		if (zero)
			lo = Math.min(0, lo);
		if (hi - lo <= 0) {
			const d = Math.abs(hi) || 1;
			hi += d * 0.5;
			if (!zero || lo !== 0)
				lo -= d * 0.5;
		}
		/* room above the largest value, so that no point sits on the
		 * frame */
		hi += (hi - lo) * 0.03;
		const step = niceStep((hi - lo) / 5);
		lo = Math.floor(lo / step + 1e-9) * step;
		hi = Math.ceil(hi / step - 1e-9) * step;
		return {
			kind: kind,
			lo: lo,
			hi: hi,
			map: (v) => r0 + (v - lo) / (hi - lo) * (r1 - r0),
			ticks: linearTicks(lo, hi, 5),
		};
	}

	function usable(v, log) {
		return finite(v) && (!log || v > 0);
	}

	/* ---- a plot ---------------------------------------------------------- */

	const W = 440, H = 280;
	let plotCount = 0;

	function marker(shape, x, y, attrs) {
		x = px(x);
		y = px(y);
		if (shape === 'up')
			return svg('path', Object.assign({
				d: `M${x} ${px(y - 4.2)}L${px(x + 3.8)} ${px(y + 2.6)}` +
				   `L${px(x - 3.8)} ${px(y + 2.6)}Z`,
			}, attrs));
		if (shape === 'down')
			return svg('path', Object.assign({
				d: `M${x} ${px(y + 4.2)}L${px(x + 3.8)} ${px(y - 2.6)}` +
				   `L${px(x - 3.8)} ${px(y - 2.6)}Z`,
			}, attrs));
		return svg('circle', Object.assign({ cx: x, cy: y, r: 3.2 }, attrs));
	}

	/* Lay the legend's items out in rows across the top; its height. */
	function drawLegend(root, items, left) {
		let x = left, y = 13;
		for (const item of items) {
			const width = 22 + item.label.length * 6.3;
			if (x > left && x + width > W - 6) {
				x = left;
				y += 16;
			}
			const g = svg('g', { class: 'legend-item' });
			if (item.shape)
				g.appendChild(marker(item.shape, x + 6, y - 4,
						     { class: 'point ' + item.cls }));
			else
				g.appendChild(svg('line', {
					x1: x, y1: y - 4, x2: x + 16, y2: y - 4,
					class: 'legend-line ' + item.cls,
				}));
			g.appendChild(svg('text', {
				x: x + (item.shape ? 14 : 20), y: y,
				class: item.textClass || null, text: item.label,
			}));
			root.appendChild(g);
			x += width + 10;
		}
		return y + 8;
	}

	/*
	 * One plot as an <svg>.  @o: plot (its kind, for data-plot), title,
	 * axes ("log-log" or "linear"), xLabel, yLabel, xFormat, yFormat,
	 * yZero (a linear y axis starts at 0), series (key, label, cls,
	 * shape, line, stems, points: {x, y, n, title}), curves (key, label,
	 * cls, fn, x0, x1), references (horizontal lines: y, label), and
	 * xExtra, yExtra: values the axes must also show (to share them).
	 */
	function drawPlot(o) {
		const id = ++plotCount;
		const logs = o.axes === 'log-log';
		const root = svg('svg', {
			class: 'plot', viewBox: `0 0 ${W} ${H}`, role: 'img',
			'aria-label': o.title, 'data-plot': o.plot, 'data-axes': o.axes,
		});
		root.appendChild(tooltip(o.title));

		const legend = [];
		for (const se of o.series)
			legend.push({ label: se.label, cls: se.cls, shape: se.shape });
		for (const c of o.curves || [])
			legend.push({ label: c.label, cls: c.cls,
				      textClass: 'formula' });
		for (const r of o.references || [])
			legend.push({ label: r.label, cls: 'reference' });
		const m = { l: 62, r: 12, b: 40 };
		m.t = drawLegend(root, legend, 8) + 4;

		let hidden = 0;
		const xs = (o.xExtra || []).filter((v) => usable(v, logs));
		const ys = (o.yExtra || []).filter((v) => usable(v, logs));
		const kept = o.series.map((se) => {
			const points = se.points.filter(
				(p) => usable(p.x, logs) && usable(p.y, logs));
			hidden += se.points.length - points.length;
			for (const p of points) {
				xs.push(p.x);
				ys.push(p.y);
			}
			return points;
		});
		for (const r of o.references || [])
			if (usable(r.y, logs))
				ys.push(r.y);

		const kind = logs ? 'log' : 'linear';
		const left = m.l, right = W - m.r, top = m.t, bottom = H - m.b;
		if (!xs.length || !ys.length) {
			root.appendChild(svg('rect', {
				x: left, y: top, width: right - left, height: bottom - top,
				class: 'frame',
			}));
			root.appendChild(svg('text', {
				x: (left + right) / 2, y: (top + bottom) / 2,
				'text-anchor': 'middle', class: 'message',
				text: hidden ? 'no point can be drawn on log axes'
					     : 'no points',
			}));
			return root;
		}
		const x = makeScale(kind, xs, left, right, o.xZero);
		const y = makeScale(kind, ys, bottom, top, o.yZero);

		/* grid, ticks, frame, axis labels */
		const axes = svg('g', { class: 'axes' });
		for (const t of x.ticks) {
			const tx = px(x.map(t));
			if (tx < left - 0.5 || tx > right + 0.5)
				continue;
			axes.appendChild(svg('line', {
				x1: tx, x2: tx, y1: top, y2: bottom, class: 'grid' }));
			axes.appendChild(svg('text', {
				x: tx, y: bottom + 14, 'text-anchor': 'middle',
				class: 'tick-label', text: o.xFormat(t) }));
		}
		for (const t of y.ticks) {
			const ty = px(y.map(t));
			if (ty < top - 0.5 || ty > bottom + 0.5)
				continue;
			axes.appendChild(svg('line', {
				x1: left, x2: right, y1: ty, y2: ty, class: 'grid' }));
			axes.appendChild(svg('text', {
				x: left - 5, y: ty + 3.5, 'text-anchor': 'end',
				class: 'tick-label', text: o.yFormat(t) }));
		}
		axes.appendChild(svg('rect', {
			x: left, y: top, width: right - left, height: bottom - top,
			class: 'frame' }));
		axes.appendChild(svg('text', {
			x: (left + right) / 2, y: H - 8, 'text-anchor': 'middle',
			class: 'axis-label', text: o.xLabel }));
		axes.appendChild(svg('text', {
			x: 0, y: 0, 'text-anchor': 'middle', class: 'axis-label',
			transform: `translate(12 ${px((top + bottom) / 2)}) rotate(-90)`,
			text: o.yLabel }));
		root.appendChild(axes);

		const clipId = 'plot-clip-' + id;
		root.appendChild(svg('defs', {}, svg('clipPath', { id: clipId },
			svg('rect', { x: left, y: top, width: right - left,
				      height: bottom - top }))));
		const inside = svg('g', { 'clip-path': `url(#${clipId})` });
		root.appendChild(inside);

		for (const r of o.references || []) {
			if (!usable(r.y, logs))
				continue;
			const ry = px(y.map(r.y));
			inside.appendChild(svg('line', {
				x1: left, x2: right, y1: ry, y2: ry, class: 'reference' }));
		}

		/* fitted curves: sampled between their ends, broken where they
		 * leave what a log axis can show */
		for (const c of o.curves || []) {
			const a = Math.max(c.x0, x.lo), b = Math.min(c.x1, x.hi);
			if (!(b > a) && !(b === a && a > 0))
				continue;
			let d = '', pen = 'M';
			const steps = 160;
			for (let i = 0; i <= steps; i++) {
				const t = i / steps;
				const xv = logs ? a * Math.pow(b / a, t) : a + (b - a) * t;
				const yv = c.fn(xv);
				if (!usable(yv, logs)) {
					pen = 'M';
					continue;
				}
				const cy = Math.max(-1e4, Math.min(1e4, y.map(yv)));
				d += `${pen}${px(x.map(xv))} ${px(cy)}`;
				pen = 'L';
			}
			if (d)
				inside.appendChild(svg('path', {
					d: d, class: c.cls, 'data-curve': c.key,
				}, tooltip(c.label)));
		}

		o.series.forEach((se, k) => {
			const points = kept[k];
			const group = svg('g', { class: 'series', 'data-series': se.key });
			if (se.line && points.length > 1) {
				let d = '';
				points.forEach((p, i) => {
					d += (i ? 'L' : 'M') + px(x.map(p.x)) + ' ' +
					     px(y.map(p.y));
				});
				group.appendChild(svg('path', {
					d: d, class: 'series-line ' + se.cls }));
			}
			for (const p of points) {
				const cx = x.map(p.x), cy = y.map(p.y);
				if (se.stems)
					group.appendChild(svg('line', {
						x1: px(cx), x2: px(cx), y1: bottom, y2: px(cy),
						class: 'stem' }));
				group.appendChild(marker(se.shape, cx, cy, {
					class: 'point ' + se.cls, 'data-n': p.n,
					'data-series': se.key,
				})).appendChild(tooltip(p.title));
			}
			root.appendChild(group);
		});

		if (hidden)
			root.appendChild(svg('text', {
				x: right, y: H - 22, 'text-anchor': 'end', class: 'note',
				text: `${hidden} point${hidden > 1 ? 's' : ''} with n = 0 ` +
				      'or a cost of 0 not shown on log axes',
			}));
		return root;
	}

	/* ---- cards: a plot with its caption and its axes toggle ------------ */

	const cards = [];
	/* The axes the page-wide toggle last chose, for plots drawn later. */
	let pageAxes = null;

	function axesToggle(current, choose) {
		const box = html('span', { class: 'toggle', role: 'group',
					   'aria-label': 'axes' });
		const buttons = ['log-log', 'linear'].map((axes) => html('button', {
			type: 'button', 'data-axes': axes,
			'aria-pressed': String(axes === current), text: axes,
			onclick: () => choose(axes),
		}));
		appendAll(box, buttons);
		box.update = (axes) => {
			for (const b of buttons)
				b.setAttribute('aria-pressed',
					       String(b.dataset.axes === axes));
		};
		return box;
	}

	/* @draw(axes) makes the plot; it is drawn again when the axes
	 * change, here or for the whole page. */
	function plotCard(name, title, note, draw, initial) {
		const box = html('div', { class: 'plot-box' });
		let axes = pageAxes || initial || 'log-log';
		const show = (choice) => {
			axes = choice;
			toggle.update(axes);
			try {
				box.replaceChildren(draw(axes));
			} catch (e) {
				noteError(`${title}: ${e.message}`);
			}
		};
		const toggle = axesToggle(axes, show);
		cards.push(show);
		show(axes);
		return html('figure', { class: 'card', 'data-card': name }, [
			html('figcaption', {}, [
				html('span', { class: 'card-title', text: title }), toggle]),
			box,
			note ? html('p', { class: 'card-note', text: note }) : null,
		]);
	}

	function messageCard(name, title, message) {
		return html('figure', { class: 'card', 'data-card': name }, [
			html('figcaption', {}, html('span', { class: 'card-title',
							      text: title })),
			html('div', { class: 'card-message', text: message }),
		]);
	}

	/* ---- a region ------------------------------------------------------ */

	const STATS = [
		{ key: 'worst', shape: 'up', label: 'worst' },
		{ key: 'mean', shape: 'circle', label: 'mean' },
		{ key: 'best', shape: 'down', label: 'best' },
	];

	function pointsOf(g, which) {
		const list = which === metric ? g.points : g['points_' + which];
		return Array.isArray(list) ? list : [];
	}

	function regionName(g) {
		return g.thread !== undefined ? `${g.name} @ ${g.thread}` : g.name;
	}

	function pointTitle(p, which, lead) {
		return `${lead}\n${which} n = ${grouped(p.n)}: ` +
		       `${grouped(p.count)} activation${p.count === 1 ? '' : 's'}\n` +
		       `worst ${formatCost(p.worst)}, mean ${formatCost(p.mean)}, ` +
		       `best ${formatCost(p.best)}\n` +
		       `stddev ${formatCost(p.stddev)}`;
	}

	/* g(n) of a fitted model; for "exp", base^n if the JSON has the
	 * base (then c0 is 0).  null if it cannot be computed. */
	function gOf(fit, name) {
		if (G[name])
			return G[name];
		if (name === 'exp' && fit && finite(fit.base) && fit.base > 0)
			return (n) => Math.pow(fit.base, n);
		return null;
	}

	function fitCurve(g) {
		const model = g.fit && gOf(g.fit, g.fit.model);
		if (!model || !finite(g.fit.c0) || !finite(g.fit.c1))
			return null;
		const c0 = g.fit.c0, c1 = g.fit.c1;
		let x0 = Infinity, x1 = -Infinity;
		for (const p of g.points)
			if (p.n >= 1) {
				x0 = Math.min(x0, p.n);
				x1 = Math.max(x1, p.n);
			}
		if (!(x1 >= x0))
			return null;
		return {
			key: 'fit', cls: 'fit',
			label: `fit: ${g.fit.formula}`,
			fn: (n) => c0 + c1 * model(n),
			x0: x0,
			x1: x1,
		};
	}

	function costCard(g) {
		const curve = fitCurve(g);
		const note = `${stat === 'worst' ? 'The worst' : stat === 'mean'
			? 'The mean' : 'The best'} cost at each ${metric} size is fitted` +
			(g.fit ? `: cost = c0 + c1 \u00b7 g(n) with g = ${g.fit.model}, ` +
				 `leave-one-out error (SMAPE) ${fixed(g.fit.smape, 3)}.`
			       : ' only with enough sizes; here no curve: ' +
				 (g.reason || 'no estimate') + '.') +
			' Steeper on log-log axes means faster growth: slope 1 is ' +
			'linear, 2 quadratic.';
		return plotCard('cost', `cost vs ${metric} (input size)`, note,
			(axes) => drawPlot({
				plot: 'cost', axes: axes,
				title: `${regionName(g)}: cost vs ${metric}`,
				xLabel: `${metric}: input size n (cells)`,
				yLabel: `cost (${unit})`,
				xFormat: compact, yFormat: (v) => formatCost(v, true),
				yZero: true, xZero: true,
				series: STATS.map((s) => ({
					key: s.key, label: s.label, cls: 's-' + s.key,
					shape: s.shape,
					points: g.points.map((p) => ({
						x: p.n, y: p[s.key], n: p.n,
						title: pointTitle(p, metric,
							`${s.label} cost ${formatCost(p[s.key])}`),
					})),
				})),
				curves: curve ? [curve] : [],
			}));
	}

	function workloadCard(g) {
		const calls = g.points.reduce((a, p) => a + (p.count || 0), 0);
		return plotCard('workload', `workload: activations per ${metric}`,
			`How often the region ran at each input size (${grouped(calls)} ` +
			'activations in all): where its typical inputs lie.',
			(axes) => drawPlot({
				plot: 'workload', axes: axes,
				title: `${regionName(g)}: activations vs ${metric}`,
				xLabel: `${metric}: input size n (cells)`,
				yLabel: 'activations', xFormat: compact, yFormat: compact,
				xZero: true, yZero: true,
				series: [{
					key: 'count', label: 'activations', cls: 's-count',
					shape: 'circle', stems: true,
					points: g.points.map((p) => ({
						x: p.n, y: p.count, n: p.n,
						title: pointTitle(p, metric,
							`${grouped(p.count)} activations`),
					})),
				}],
			}));
	}

	/* cost / g(n) for the fitted g and the classes either side of it,
	 * each divided by its mean over the largest quarter of the sizes. */
	function ratioCard(g) {
		const title = 'guess ratio: cost / g(n)';
		const at = g.fit ? FITTED.indexOf(g.fit.model) : -1;
		let roles;
		if (at >= 0)
			roles = [['lower', FITTED[at - 1]], ['chosen', FITTED[at]],
				 ['upper', FITTED[at + 1]]];
		else if (g.fit && g.fit.model === 'exp')
			roles = [['lower', 'n^3'], ['chosen', 'exp']];
		else
			return messageCard('ratio', title, 'No growth estimate to ' +
				'check' + (g.reason ? ` (${g.reason})` : '') + '.');
		const points = g.points.filter((p) => p.n >= 1 && finite(p[stat]))
			.sort((a, b) => a.n - b.n);
		const series = [];
		for (const [role, name] of roles) {
			const gf = name && gOf(g.fit, name);
			if (!gf)
				continue;
			const raw = points.map((p) => p[stat] / gf(p.n));
			const tail = raw.slice(Math.floor(raw.length * 3 / 4))
				.filter((v) => usable(v, true));
			const mean = tail.reduce((a, v) => a + v, 0) / (tail.length || 1);
			const scale = mean > 0 && finite(mean) ? mean : 1;
			series.push({
				key: 'ratio-' + name, cls: 's-' + role,
				shape: role === 'chosen' ? 'circle' : role === 'lower'
					? 'up' : 'down',
				line: true,
				label: `cost / ${name}${role === 'chosen' ? ' (fitted)' : ''}`,
				points: points.map((p, i) => ({
					x: p.n, y: raw[i] / scale, n: p.n,
					title: `${stat} cost / ${name} at ${metric} n = ` +
					       `${grouped(p.n)}: ${number(raw[i])} ` +
					       `(scaled: ${number(raw[i] / scale)})`,
				})),
			});
		}
		return plotCard('ratio', title,
			`The ${stat} cost divided by g(n), each curve scaled to 1 over ` +
			'the largest quarter of the sizes. A curve that flattens out ' +
			'to the right bounds the cost: cost = O(g(n)). One still ' +
			'rising grows faster than its g; one falling, slower.',
			(axes) => drawPlot({
				plot: 'ratio', axes: axes,
				title: `${regionName(g)}: cost / g(n)`,
				xLabel: `${metric}: input size n (cells)`,
				yLabel: 'cost / g(n), scaled', xFormat: compact,
				yFormat: compact, xZero: true, yZero: true,
				series: series,
				references: [{ y: 1, label: 'flat' }],
			}));
	}

	/* The same cost by each size metric, on the same axes. */
	function metricCards(g) {
		const byMetric = { trms: pointsOf(g, 'trms'),
				   rms: pointsOf(g, 'rms') };
		const xs = [], ys = [];
		for (const which of ['trms', 'rms'])
			for (const p of byMetric[which]) {
				xs.push(p.n);
				ys.push(p[stat]);
			}
		const s = STATS.find((t) => t.key === stat);
		return ['trms', 'rms'].map((which) => {
			const points = byMetric[which];
			const title = `${stat} cost vs ${which} (${points.length} ` +
				      `size${points.length === 1 ? '' : 's'})`;
			const note = which === 'trms'
				? 'trms counts input that other threads and the kernel ' +
				  'wrote as new input each time; rms (next to it, same ' +
				  'axes) only first reads.'
				: 'rms: the read memory size of the sequential profilers. ' +
				  'Fewer, bunched-up sizes here than under trms mean ' +
				  'input from threads or I/O.';
			return plotCard(which, title, note, (axes) => drawPlot({
				plot: which, axes: axes,
				title: `${regionName(g)}: ${stat} cost vs ${which}`,
				xLabel: `${which}: input size n (cells)`,
				yLabel: `cost (${unit})`, xFormat: compact,
				yFormat: (v) => formatCost(v, true),
				xZero: true, yZero: true, xExtra: xs, yExtra: ys,
				series: [{
					key: stat, label: `${stat} cost`, cls: 's-' + stat,
					shape: s.shape,
					points: points.map((p) => ({
						x: p.n, y: p[stat], n: p.n,
						title: pointTitle(p, which,
							`${stat} cost ${formatCost(p[stat])}`),
					})),
				}],
			}));
		});
	}

	function sharesCard(g) {
		const t = g.input_thread_share, e = g.input_external_share;
		const known = finite(t) && finite(e);
		const root = svg('svg', {
			class: 'plot', viewBox: `0 0 ${W} 74`, role: 'img',
			'data-plot': 'shares',
			'aria-label': 'where the input came from',
		});
		const left = 8, width = W - 16, top = 26, height = 22;
		if (!known) {
			root.appendChild(svg('rect', {
				x: left, y: top, width: width, height: height,
				class: 'share-none', 'data-share': 'none' },
				tooltip('no input read: no shares')));
			root.appendChild(svg('text', {
				x: W / 2, y: top + 15, 'text-anchor': 'middle',
				class: 'note', text: 'no input read' }));
		} else {
			const parts = [
				['thread', t, 'other threads wrote'],
				['external', e, 'the kernel wrote (read, recv, ...)'],
				['own', Math.max(0, 1 - t - e), 'first reads of its own'],
			];
			let x = left, lx = left;
			for (const [key, share, what] of parts) {
				const w = Math.max(0, share) * width;
				const text = `${key}: ${percent(share)} of the input: ${what}`;
				if (w > 0)
					root.appendChild(svg('rect', {
						x: px(x), y: top, width: px(w), height: height,
						class: 'share-' + key, 'data-share': key,
					}, tooltip(text)));
				x += w;
				const label = `${key} ${percent(share)}`;
				root.appendChild(svg('rect', {
					x: lx, y: 7, width: 10, height: 10,
					class: 'share-' + key }));
				root.appendChild(svg('text', {
					x: lx + 14, y: 16, text: label }));
				lx += 24 + label.length * 6.4;
			}
			for (const f of [0, 0.25, 0.5, 0.75, 1])
				root.appendChild(svg('text', {
					x: px(left + f * width), y: 64,
					'text-anchor': f === 0 ? 'start' : f === 1 ? 'end'
									: 'middle',
					class: 'note', text: `${f * 100}%` }));
		}
		const trmsSizes = pointsOf(g, 'trms').length;
		const rmsSizes = pointsOf(g, 'rms').length;
		const facts = html('dl', { class: 'facts' }, [
			html('dt', { text: 'thread input' }),
			html('dd', { text: `${percent(t)} (${grouped(g.induced_thread)} ` +
					   'cells other threads wrote)' }),
			html('dt', { text: 'external input' }),
			html('dd', { text: `${percent(e)} (${grouped(g.induced_external)} ` +
					   'cells the kernel wrote)' }),
			html('dt', { text: 'profile richness' }),
			html('dd', { text: `${signed(g.profile_richness)}: ` +
					   `${trmsSizes} trms sizes, ${rmsSizes} rms sizes` }),
			html('dt', { text: 'input volume' }),
			html('dd', { text: `${fixed(g.input_volume, 2)}: 1 \u2212 ` +
					   '\u03a3 rms / \u03a3 trms' }),
		]);
		return html('figure', { class: 'card', 'data-card': 'shares' }, [
			html('figcaption', {}, html('span', { class: 'card-title',
				text: 'where the input came from (share of \u03a3 trms)' })),
			html('div', { class: 'plot-box' }, root),
			facts,
		]);
	}

	function modelsTable(g) {
		if (!Array.isArray(g.models) || !g.models.length)
			return null;
		const chosen = g.fit ? g.fit.model : null;
		return html('details', { class: 'models' }, [
			html('summary', { text: `every candidate model (${g.models.length})` +
				(g.fit ? `; span ${number(g.fit.span)}\u00d7, upper log-log ` +
					 `slope ${fixed(g.fit.upper_slope, 2)}` : '') }),
			html('table', { class: 'models' }, [
				html('thead', {}, html('tr', {}, ['g(n)', 'valid', 'c0', 'c1',
					'SMAPE'].map((t) => html('th', { text: t })))),
				html('tbody', {}, g.models.map((mo) => html('tr', {
					class: mo.growth === chosen ? 'chosen' : null,
				}, [
					html('td', { text: mo.growth }),
					html('td', { text: mo.valid ? 'yes' : 'no' }),
					html('td', { text: number(mo.c0) }),
					html('td', { text: number(mo.c1) }),
					html('td', { text: fixed(mo.smape, 3) }),
				]))),
			]),
		]);
	}

	function sentence(g) {
		if (g.growth === 'insufficient' || !g.fit)
			return html('p', { class: 'sentence' }, [
				html('span', { class: 'growth-none', text: 'no estimate' }),
				`: ${g.reason || 'insufficient data'}`]);
		const pts = g.points;
		const what = stat === 'worst' ? 'worst-case' : stat === 'mean'
			? 'mean' : 'best-case';
		return html('p', { class: 'sentence' }, [
			`${what} cost grows as `,
			html('strong', { class: growthClass(g.growth),
					 text: growthText(g) }),
			` in its input size (${g.confidence} confidence, ` +
			`${pts.length} distinct ${metric} sizes from ` +
			`${grouped(pts.length ? pts[0].n : 0)} to ${grouped(g.max_n)}): `,
			html('span', { class: 'formula-text', text: g.fit.formula }),
		]);
	}

	function regionSection(g, index) {
		const section = html('section', {
			class: 'region', id: 'region-' + index, 'data-region': index,
			'data-name': g.name,
		});
		section.appendChild(html('h2', {}, [
			html('span', { class: 'region-name', text: g.name }),
			g.thread !== undefined
				? html('span', { class: 'thread-chip',
						 text: 'thread ' + g.thread }) : null,
			html('span', { class: growthClass(g.growth), text: growthText(g) }),
			html('a', { class: 'back', href: '#summary', text: 'summary' }),
		]));
		section.appendChild(sentence(g));
		if (g.reason && g.fit && g.confidence !== 'HIGH')
			section.appendChild(html('p', { class: 'hint',
							text: `(${g.reason})` }));
		if (g.variance_cancelled)
			section.appendChild(html('p', { class: 'hint', text:
				'(the spread of costs at some sizes lost precision: too ' +
				'few digits left after cancellation)' }));
		if (g.correction && g.correction.note)
			section.appendChild(html('p', { class: 'hint',
							text: `(${g.correction.note})` }));
		section.drawPlots = () => {
			section.drawPlots = null;
			section.removeAttribute('data-pending');
			section.querySelector('.pending')?.remove();
			const cards = html('div', { class: 'cards' });
			section.appendChild(cards);
			const parts = [costCard, workloadCard, ratioCard,
				       metricCards, sharesCard];
			for (const part of parts) {
				try {
					appendAll(cards, part(g));
				} catch (e) {
					noteError(`${regionName(g)}: ${e.message}`);
				}
			}
			appendAll(section, modelsTable(g));
		};
		if (index < EAGER_REGIONS) {
			section.drawPlots();
		} else {
			section.setAttribute('data-pending', '');
			section.appendChild(html('p', { class: 'hint pending', text:
				'(the plots are drawn when this region comes into ' +
				'view)' }));
		}
		return section;
	}

	/*
	 * A page of hundreds of regions would hold thousands of plots: the
	 * first EAGER_REGIONS regions are drawn at once, the others when they
	 * come within a window's height of the window, or the page is
	 * printed.  Looked for on scrolling, resizing and following a link,
	 * and twice a second while some wait (a scroll made by a script does
	 * not always say so).
	 */
	const EAGER_REGIONS = 24;

	function drawNear(all) {
		const pending = [...document.querySelectorAll(
			'section[data-pending]')];
		/* Where they all are first: drawing one moves the ones below. */
		const near = pending.filter((s) => {
			const r = s.getBoundingClientRect();
			return all || (r.top < 2 * window.innerHeight &&
				       r.bottom > -window.innerHeight);
		});
		for (const s of near)
			s.drawPlots();
		return pending.length > near.length;
	}

	function drawLazily() {
		const near = () => drawNear(false);
		for (const event of ['scroll', 'resize', 'hashchange'])
			window.addEventListener(event, near, { passive: true });
		window.addEventListener('beforeprint', () => drawNear(true));
		const timer = setInterval(() => {
			if (!drawNear(false))
				clearInterval(timer);
		}, 500);
	}

	/* ---- the summary table --------------------------------------------- */

	const COLUMNS = [
		{ key: 'name', title: 'region', value: (g) => regionName(g) },
		{ key: 'total', title: 'total', value: (g) => g.total_cost,
		  text: (g) => formatCost(g.total_cost) },
		{ key: 'calls', title: 'calls', value: (g) => g.calls,
		  text: (g) => grouped(g.calls) },
		{ key: 'sizes', title: 'sizes', value: (g) => g.sizes,
		  text: (g) => grouped(g.sizes) },
		{ key: 'growth', title: 'growth', cls: 'growth',
		  value: (g) => GROWTH_ORDER.indexOf(g.growth) === 10 ? -1
			: GROWTH_ORDER.indexOf(g.growth),
		  text: (g) => growthText(g) },
		{ key: 'conf', title: 'conf', cls: 'conf',
		  value: (g) => ['LOW', 'MEDIUM', 'HIGH'].indexOf(g.confidence),
		  text: (g) => g.confidence || '-' },
		{ key: 'at_max', title: `${stat} cost @ max n`,
		  value: (g) => g.cost_at_max_n,
		  text: (g) => `${formatCost(g.cost_at_max_n)} @ ${grouped(g.max_n)}` },
		{ key: 'thread', title: 'thread', value: (g) => g.input_thread_share,
		  text: (g) => percent(g.input_thread_share) },
		{ key: 'extern', title: 'extern', value: (g) => g.input_external_share,
		  text: (g) => percent(g.input_external_share) },
		{ key: 'richness', title: 'richness', value: (g) => g.profile_richness,
		  text: (g) => signed(g.profile_richness) },
		{ key: 'volume', title: 'volume', value: (g) => g.input_volume,
		  text: (g) => fixed(g.input_volume, 2) },
	];

	function summaryTable() {
		const body = html('tbody');
		const rows = regions.map((g, i) => html('tr', { 'data-region': i },
			COLUMNS.map((c) => {
				if (c.key === 'name')
					return html('td', { class: 'name', title: regionName(g) },
						html('a', { href: '#region-' + i,
							    text: regionName(g) }));
				const cls = c.key === 'growth' ? 'growth ' +
					growthClass(g.growth) : c.key === 'conf'
					? 'conf conf-' + g.confidence : null;
				return html('td', { class: cls, text: c.text(g) });
			})));
		appendAll(body, rows);
		const heads = COLUMNS.map((c) => html('th', {
			scope: 'col', class: c.cls || null, 'data-key': c.key,
			title: 'sort by ' + c.title, text: c.title, tabindex: 0,
			onkeydown: (e) => {
				if (e.key === 'Enter' || e.key === ' ') {
					e.preventDefault();
					e.currentTarget.click();
				}
			},
		}));
		/* Sorting by a column: largest first, names A to Z; again:
		 * the other way. */
		heads.forEach((th, k) => th.addEventListener('click', () => {
			const c = COLUMNS[k];
			const descending = th.getAttribute('aria-sort') !== 'descending';
			for (const other of heads)
				other.removeAttribute('aria-sort');
			th.setAttribute('aria-sort', descending ? 'descending'
								: 'ascending');
			const order = regions.map((g, i) => i);
			order.sort((a, b) => {
				let x = c.value(regions[a]), y = c.value(regions[b]);
				if (typeof x === 'string') {
					const d = x.localeCompare(y);
					return descending ? d : -d;
				}
				x = finite(x) ? x : -Infinity;
				y = finite(y) ? y : -Infinity;
				const d = x === y ? a - b : y > x ? 1 : -1;
				return descending ? d : -d;
			});
			for (const i of order)
				body.appendChild(rows[i]);
		}));
		return html('div', { class: 'table-wrap' }, html('table', {
			class: 'summary', id: 'summary-table',
		}, [html('thead', {}, html('tr', {}, heads)), body]));
	}

	/* ---- the calling context tree as an icicle -------------------------- */

	/* Nodes under this share of the node in view are not drawn. */
	const MIN_SHARE = 0.001;
	const ROW = 18;

	function nodeKind(node, depth) {
		if (depth === 0)
			return 'root';
		if (/^\[.*\]$/.test(node.name))
			return 'region';
		if (node.name === '(thread start)')
			return 'thread-start';
		if (depth === 1 && report.per_thread && /^thread \d+/.test(node.name))
			return 'thread';
		return 'frame';
	}

	function frameColour(name) {
		let h = 2166136261;
		for (let i = 0; i < name.length; i++) {
			h ^= name.charCodeAt(i);
			h = Math.imul(h, 16777619);
		}
		h >>>= 0;
		return `hsl(${8 + h % 42}, ${72 + (h >> 8) % 18}%, ` +
		       `${60 + (h >> 16) % 14}%)`;
	}

	function nodeTitle(node, view, all) {
		const share = all ? node.total / all : 0;
		let text = `${node.name}\n${grouped(node.total)} samples ` +
			   `(${percent(share)} of all`;
		if (view !== all && view)
			text += `, ${percent(node.total / view)} of the view`;
		text += `)\nself: ${grouped(node.self)}\n` +
			`work: ${grouped(node.work)}, overhead: ` +
			`${grouped(node.overhead)}, blocked: ${grouped(node.blocked)}\n` +
			`idleness: ${fixed(node.idleness, 2)}`;
		return text + '\nclick to zoom in';
	}

	function icicleSection(tree) {
		const all = tree.total || 0;
		const box = html('div', { class: 'icicle-box' });
		const crumbs = html('span', { class: 'crumbs' });
		const back = html('button', { type: 'button', class: 'plain',
					      text: 'back to the root' });
		let path = [tree]; /* from the root to the node in view */

		function zoom(newPath) {
			path = newPath;
			draw();
		}

		function drawCrumbs() {
			crumbs.replaceChildren();
			path.forEach((node, i) => {
				if (i)
					crumbs.appendChild(document.createTextNode(' \u203a '));
				if (i === path.length - 1)
					crumbs.appendChild(html('strong', { text: node.name }));
				else
					crumbs.appendChild(html('button', {
						type: 'button', text: node.name,
						onclick: () => zoom(path.slice(0, i + 1)),
					}));
			});
			back.disabled = path.length === 1;
		}

		function draw() {
			drawCrumbs();
			const width = Math.max(320, Math.floor(box.clientWidth ||
				document.documentElement.clientWidth - 64 || 1200));
			const view = path[path.length - 1];
			const viewTotal = view.total || 0;
			const cells = [];
			let depthMax = path.length - 1;
			/* the ancestors of the node in view, full width */
			path.slice(0, -1).forEach((node, depth) => cells.push({
				node: node, depth: depth, x: 0, w: width, ancestor: true,
				path: path.slice(0, depth + 1),
			}));
			(function lay(node, depth, x, nodePath) {
				const w = viewTotal ? node.total / viewTotal * width : width;
				cells.push({ node: node, depth: depth, x: x, w: w,
					     path: nodePath });
				depthMax = Math.max(depthMax, depth);
				let cx = x;
				for (const child of node.children || []) {
					if (!(child.total * 1 >= viewTotal * MIN_SHARE) ||
					    !child.total) {
						cx += viewTotal ? child.total / viewTotal * width
								: 0;
						continue;
					}
					lay(child, depth + 1, cx, nodePath.concat([child]));
					cx += child.total / viewTotal * width;
				}
			})(view, path.length - 1, 0, path.slice());

			const root = svg('svg', {
				class: 'icicle', width: width,
				height: (depthMax + 1) * ROW + 1,
				viewBox: `0 0 ${width} ${(depthMax + 1) * ROW + 1}`,
				role: 'img', 'data-plot': 'icicle',
				'data-min-share': MIN_SHARE, 'data-zoomed': path.length - 1,
				'aria-label': 'calling context tree, the root at the top',
			});
			for (const c of cells) {
				const kind = nodeKind(c.node, c.depth);
				const g = svg('g', {
					class: 'node kind-' + kind + (c.ancestor
						? ' ancestor' : ''),
					tabindex: 0, role: 'button',
					'aria-label': c.node.name,
				});
				const rect = svg('rect', {
					x: px(c.x), y: c.depth * ROW, width: px(Math.max(c.w, 0.5)),
					height: ROW - 1, 'data-node': c.node.name,
					'data-kind': kind, 'data-depth': c.depth,
					'data-total': c.node.total,
				});
				if (kind === 'frame')
					rect.setAttribute('fill', frameColour(c.node.name));
				g.appendChild(rect);
				const chars = Math.floor((c.w - 8) / 6.6);
				if (chars >= 3) {
					const label = c.node.name.length > chars
						? c.node.name.slice(0, chars - 1) + '\u2026'
						: c.node.name;
					g.appendChild(svg('text', {
						x: px(c.x + 4), y: c.depth * ROW + 12.5,
						text: label }));
				}
				g.appendChild(tooltip(nodeTitle(c.node, viewTotal, all)));
				const target = c.path;
				g.addEventListener('click', () => zoom(target));
				g.addEventListener('keydown', (e) => {
					if (e.key === 'Enter' || e.key === ' ') {
						e.preventDefault();
						zoom(target);
					}
				});
				root.appendChild(g);
			}
			box.replaceChildren(root);
		}

		back.addEventListener('click', () => zoom([tree]));
		document.addEventListener('keydown', (e) => {
			if (e.key === 'Escape' && path.length > 1)
				zoom([tree]);
		});
		let resizeTimer = 0;
		window.addEventListener('resize', () => {
			clearTimeout(resizeTimer);
			resizeTimer = setTimeout(draw, 150);
		});

		const swatch = (cls, colour, text) => html('span', {}, [
			html('span', { class: 'legend-swatch ' + cls,
				       style: 'background:' + colour }), text]);
		const section = html('section', { class: 'block', id: 'call-tree' }, [
			html('h2', { text: `Calling context tree: ${grouped(all)} ` +
					   'call-stack samples' }),
			html('p', { class: 'hint', text: 'The root at the top, each ' +
				'caller above its callees, widths by samples in the ' +
				'subtree (children largest first, left to right). Click a ' +
				'node to zoom into it, a node above it or the path to ' +
				'zoom out; Escape goes back to the root. Hover for ' +
				'samples, work, overhead and idleness. Nodes under ' +
				`${MIN_SHARE * 100}% of the view are left out.` }),
			html('div', { class: 'icicle-controls' }, [
				back, crumbs,
				html('span', { class: 'hint' }, [
					swatch('', 'hsl(30, 80%, 65%)', 'function'),
					swatch('', 'var(--region)', '[region]'),
					swatch('', 'var(--thread)',
					       report.per_thread ? 'thread, (thread start)'
								 : '(thread start)'),
				]),
			]),
			box,
		]);
		/* Drawn once it is in the page, where its width is known. */
		section.drawIcicle = draw;
		return section;
	}

	/* ---- the page ------------------------------------------------------- */

	function pageToggle() {
		const toggle = axesToggle('log-log', (axes) => {
			pageAxes = axes;
			toggle.update(axes);
			for (const show of cards)
				show(axes);
		});
		return toggle;
	}

	function main() {
		const profiles = Array.isArray(report.profiles) ? report.profiles : [];
		document.title = 'trms report' + (profiles.length
			? ': ' + profiles.join(', ') : '');
		document.getElementById('subtitle').textContent = [
			profiles.length ? profiles.join(', ') : null,
			`costs in ${unit === 'ns' ? 'nanoseconds' : unit}`,
			`input size: ${metric}`,
			`fitted statistic: ${stat}`,
			`${regions.length} region${regions.length === 1 ? '' : 's'}` +
				(report.per_thread ? ' (per thread)' : ''),
			report.call_tree ? `${grouped(report.samples)} call-stack samples`
					 : null,
		].filter((p) => p).join(' \u00b7 ');
		appendAll(document.getElementById('page-nav'), [
			html('a', { href: '#summary', text: 'Summary' }),
			report.call_tree ? html('a', { href: '#call-tree',
						       text: 'Call tree' }) : null,
			regions.length ? html('span', { class: 'hint' },
				['Axes of every plot: ', pageToggle()]) : null,
		]);

		const page = document.getElementById('main');
		const summary = html('section', { class: 'block', id: 'summary' }, [
			html('h2', { text: `Regions, ranked as in the terminal table` }),
			html('p', { class: 'hint', text: 'total: the sum of the costs of ' +
				'all activations; growth: how the cost grows with the ' +
				`input size (${metric}), and how sure that is; thread, ` +
				'extern: the share of the input that other threads and ' +
				'the kernel wrote; richness: (distinct trms \u2212 distinct ' +
				'rms sizes) / distinct rms sizes; volume: 1 \u2212 \u03a3 rms / ' +
				'\u03a3 trms. Click a column to sort, a region to see its plots.' }),
		]);
		page.appendChild(summary);
		if (regions.length)
			summary.appendChild(summaryTable());
		else
			summary.appendChild(html('p', { text: 'No regions in ' +
				(report.call_tree ? 'this profile: only call-stack samples.'
						  : 'this profile.') }));

		if (report.call_tree && typeof report.call_tree === 'object') {
			const tree = icicleSection(report.call_tree);
			page.appendChild(tree);
			tree.drawIcicle();
		}

		regions.forEach((g, i) => {
			try {
				page.appendChild(regionSection(g, i));
			} catch (e) {
				noteError(`region ${i} (${g && g.name}): ${e.message}`);
			}
		});
		if (regions.length > EAGER_REGIONS)
			drawLazily();
	}

	try {
		main();
		/* The sections did not exist when the browser looked for the
		 * page's #fragment. */
		const target = location.hash &&
			document.getElementById(decodeURIComponent(
				location.hash.slice(1)));
		if (target)
			target.scrollIntoView({ behavior: 'instant' });
	} catch (e) {
		noteError(e.message);
	}
	document.body.setAttribute('data-rendered', errors.length ? 'with-errors'
								   : 'yes');
})();
