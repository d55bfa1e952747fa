/* interact.js - for html.sh: what a person does on the page, before the
 * page is dumped again (check_page.py dom ... --interacted): a click on
 * the first region node of the icicle, then on the page-wide "linear"
 * button.  Appended to a copy of the page, after its own script. */
(function () {
	'use strict';
	const region = document.querySelector(
		'svg[data-plot="icicle"] rect[data-kind="region"]');
	if (region)
		region.parentNode.dispatchEvent(new MouseEvent('click',
							       { bubbles: true }));
	const linear = document.querySelector(
		'#page-nav button[data-axes="linear"]');
	if (linear)
		linear.click();
	document.body.setAttribute('data-interacted', 'yes');
})();
