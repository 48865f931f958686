"""What a page's layout looks like in chromium, for the presenter and encodings tests: tick labels as drawn (a
turned label's own rectangle), headings a chart covers, axes of few tokens left partly unlabelled, legends that
scroll, widget labels cut short, and the plot areas' widths. Each is a list of what is wrong, empty when all is well.
"""
from __future__ import annotations

import itertools

# Every tick label's four corners on screen (its box turned with it, not the upright box around it), by chart
# (its st-key-… class) and axis (the subplot's class and the letter): {chart: {axis: [[text, corners], ...]}}.
TICKS = """() => Object.fromEntries([...document.querySelectorAll('[data-testid="stPlotlyChart"]')].map(chart => {
    const key = chart.closest('[class*="st-key-"]')?.className.match(/st-key-\\S+/)?.[0] ?? '?';
    const axes = {};
    for (const t of chart.querySelectorAll('.xtick text, .ytick text')) {
        if (!t.textContent || !t.getBoundingClientRect().width) continue;
        const b = t.getBBox(), m = t.getScreenCTM();
        const id = (t.closest('.subplot')?.classList[1] ?? '?') + (t.closest('.xtick') ? ':x' : ':y');
        (axes[id] = axes[id] || []).push([t.textContent, [[b.x, b.y], [b.x + b.width, b.y],
            [b.x + b.width, b.y + b.height], [b.x, b.y + b.height]].map(([x, y]) => [m.a * x + m.c * y + m.e,
                                                                                  m.b * x + m.d * y + m.f])]);
    }
    return [key, axes];
}))"""

# Headings shown (not folded in a closed expander) that a chart's box reaches into: [heading, chart key].
COVERED = """() => {
    const shown = e => e.getBoundingClientRect().height > 0 && !e.closest('details:not([open])');
    const heads = [...document.querySelectorAll('[data-testid="stMain"] :is(h1, h2, h3)')].filter(shown);
    const charts = [...document.querySelectorAll('[data-testid="stPlotlyChart"], [data-testid="stGraphVizChart"]')]
        .filter(shown);
    return heads.flatMap(h => charts.filter(c => {
        const a = h.getBoundingClientRect(), b = c.getBoundingClientRect();
        return a.left < b.right && b.left < a.right && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
    }).map(c => [h.textContent, c.closest('[class*="st-key-"]')?.className.match(/st-key-\\S+/)?.[0] ?? '?']));
}"""

# Heatmap axes of at most `most` tokens with fewer labels drawn than tokens: [chart key, axis, tokens, labels].
UNLABELLED = """(most) => [...document.querySelectorAll('[data-testid="stPlotlyChart"] .js-plotly-plot')].flatMap(gd => {
    const key = gd.closest('[class*="st-key-"]')?.className.match(/st-key-\\S+/)?.[0] ?? '?';
    return (gd.data || []).filter(t => t.type === 'heatmap').flatMap(t => ['x', 'y'].map(letter => {
        const words = Array.isArray(t[letter]) && typeof t[letter][0] === 'string' ? t[letter] : [];
        const cell = gd.querySelector(`.subplot.${t.xaxis || 'x'}${t.yaxis || 'y'}`);
        const shown = cell ? [...cell.querySelectorAll(`.${letter}tick text`)].filter(e => e.textContent) : [];
        return [key, letter, words.length, shown.length];
    })).filter(([, , n, shown]) => n > 0 && n <= most && shown < n);
})"""

# Legends whose entries reach outside the legend's own box (the rest is behind its scroll bar): [chart key, entry].
SCROLLED = """() => [...document.querySelectorAll('[data-testid="stPlotlyChart"] .legend')].flatMap(legend => {
    const key = legend.closest('[class*="st-key-"]')?.className.match(/st-key-\\S+/)?.[0] ?? '?';
    const box = legend.querySelector('.bg').getBoundingClientRect();
    return [...legend.querySelectorAll('.traces')].filter(e => {
        const r = e.getBoundingClientRect();
        return r.top < box.top - 1 || r.bottom > box.bottom + 1;
    }).map(e => [key, e.textContent]);
})"""

# Widget labels on the page (not the sidebar) cut short: [text, its full width, the width shown].
CUT = """() => [...document.querySelectorAll(
        '[data-testid="stMain"] [data-testid="stWidgetLabel"] [data-testid="stMarkdownContainer"]')]
    .filter(e => e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1)
    .map(e => [e.textContent, e.scrollWidth, e.clientWidth])"""

# Each chart's plot area (plotly's drag rectangle of its first subplot): {chart key: [width, height]}.
PLOT_AREAS = """() => Object.fromEntries([...document.querySelectorAll('[data-testid="stPlotlyChart"]')].map(chart => {
    const key = chart.closest('[class*="st-key-"]')?.className.match(/st-key-\\S+/)?.[0] ?? '?';
    const r = chart.querySelector('.nsewdrag')?.getBoundingClientRect();
    return [key, r ? [r.width, r.height] : [0, 0]];
}))"""


def apart(p, q, slack: float = 0.5) -> bool:
    """Whether two convex quadrilaterals (lists of 4 corners) are apart: some edge's normal separates them, touching
    within `slack` px allowed (the separating axis theorem)."""
    for poly in (p, q):
        for (ax, ay), (bx, by) in zip(poly, poly[1:] + poly[:1]):
            nx, ny = ay - by, bx - ax
            size = (nx * nx + ny * ny) ** 0.5 or 1.0
            on_p, on_q = ([(nx * x + ny * y) / size for x, y in poly_] for poly_ in (p, q))
            if max(on_p) <= min(on_q) + slack or max(on_q) <= min(on_p) + slack:
                return True
    return False


def overlapping_ticks(page, prefix: str = "") -> list:
    """(chart, axis, label, label) for each two tick labels of one axis that overlap, in charts whose key starts
    with `prefix` (an st-key-… class)."""
    ticks = page.evaluate(TICKS)
    return [(key, axis, a[0], b[0]) for key, axes in ticks.items() if key.startswith(prefix)
            for axis, labels in axes.items() for a, b in itertools.combinations(labels, 2) if not apart(a[1], b[1])]


def layout_faults(page, every: int) -> dict:
    """What is wrong with the page's layout: headings covered by a chart, heatmap axes of ≤ `every` tokens not
    labelled at each one, legends that scroll, widget labels cut short."""
    return {"covered": page.evaluate(COVERED), "unlabelled": page.evaluate(UNLABELLED, every),
            "scrolled": page.evaluate(SCROLLED), "cut": page.evaluate(CUT)}
