// SPDX-License-Identifier: BSD-2-Clause
// Added to a copy of the report by report_check.sh (the report itself has
// no script): once the page has loaded, each image's state goes into a
// <pre id=report-check> that chromium --dump-dom prints. An image counts
// as a plot with data when it loaded and has enough saturated pixels:
// matplotlib draws axes, text and grid in greys, data in colours.
window.addEventListener("load", () => {
	const out = [];
	for (const img of document.images) {
		const fig = img.closest("figure");
		const r = { id: fig ? fig.id : "", points: Number(img.dataset.points),
			    loaded: img.complete && img.naturalWidth > 0, colored: 0 };
		if (r.loaded) {
			const c = document.createElement("canvas");
			c.width = img.naturalWidth;
			c.height = img.naturalHeight;
			const g = c.getContext("2d");
			g.drawImage(img, 0, 0);
			const d = g.getImageData(0, 0, c.width, c.height).data;
			for (let i = 0; i < d.length; i += 4) {
				const hi = Math.max(d[i], d[i + 1], d[i + 2]);
				const lo = Math.min(d[i], d[i + 1], d[i + 2]);
				if (hi - lo > 80)
					r.colored++;
			}
		}
		out.push(r);
	}
	const pre = document.createElement("pre");
	pre.id = "report-check";
	pre.textContent = "REPORT-CHECK " + JSON.stringify(out);
	document.body.appendChild(pre);
});
