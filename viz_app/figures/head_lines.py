"""Several heads of a layer as coloured lines between tokens, one HTML page (BertViz's head view).

Plotly cannot show one token's lines while the pointer is over it, so this view is its own page: an SVG drawn by a
short script, with no library and nothing fetched. Everything it shows comes in one JSON object; the script puts the
tokens and names in as text (textContent), never as markup, and the JSON has no "<", so a token cannot end the
script. Hovering a token keeps only its lines; clicking a head's name hides or shows that head's lines.
"""
from __future__ import annotations

import json

import numpy as np
import plotly.colors

ROW_PX = 1.7  # a token's row, in font heights


def colours(n_heads: int) -> list[str]:
    """A colour per head: d3's ten (BertViz's), or hues spread around the wheel for more heads."""
    if n_heads <= 10:
        return list(plotly.colors.qualitative.D3[:n_heads])
    return [f"hsl({round(360 * h / n_heads)}, 70%, 45%)" for h in range(n_heads)]


def page(lines, head_names, title: str, hint: str, font_px: int = 14) -> str:
    """The view's page: `lines` a views.explorer.HeadLines (the same fields in plain arrays will do), `head_names`
    one per head."""
    positions = lambda first, n: list(range(first, first + n))  # noqa: E731
    data = {"title": title, "hint": hint, "heads": list(head_names), "colours": colours(lines.n_heads),
            "rows": list(lines.rows), "keys": list(lines.k_labels), "rowPos": positions(lines.start, len(lines.rows)),
            "keyPos": positions(lines.keys.start, len(lines.k_labels)),
            "lines": np.stack([lines.head, lines.query, lines.key], axis=1).astype(int).tolist(),
            "weights": [round(float(w), 4) for w in lines.weight]}
    blob = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")
    return TEMPLATE.replace("FONT_PX", str(int(font_px))).replace("ROW_PX", str(ROW_PX)).replace("DATA", blob)


TEMPLATE = """<!doctype html><html><head><meta charset="utf-8"><style>
body { margin: 0; font: FONT_PXpx system-ui, "Noto Sans", "WenQuanYi Zen Hei", sans-serif; color: #262730; }
h4 { margin: 0 0 .3em; font-size: 1.05em; } p { margin: 0 0 .4em; color: #5f6170; font-size: .85em; }
.heads span { display: inline-block; margin: 0 .6em .3em 0; cursor: pointer; user-select: none; }
.heads span i { display: inline-block; width: .8em; height: .8em; margin-right: .25em; vertical-align: -.05em; }
.heads span.off { opacity: .35; text-decoration: line-through; }
svg text { cursor: default; } svg text.on { font-weight: bold; }
</style></head><body><h4 id="title"></h4><p id="hint"></p><div class="heads" id="heads"></div>
<svg id="lines" width="100%"></svg><script>
(() => {  // nothing global: `top` and the rest are the script's own
const D = DATA;
const row = FONT_PX * ROW_PX, ns = "http://www.w3.org/2000/svg";
const first = Math.min(D.rowPos[0] ?? 0, D.keyPos[0] ?? 0);
const last = Math.max(D.rowPos.at(-1) ?? 0, D.keyPos.at(-1) ?? 0);
const y = p => (p - first + 0.5) * row;
const svg = document.getElementById("lines");
svg.setAttribute("height", (last - first + 1) * row);
document.getElementById("title").textContent = D.title;
document.getElementById("hint").textContent = D.hint;
const on = D.heads.map(() => true);
let focus = null;  // ["q", row] or ["k", key] while the pointer is over a token
const make = (tag, attrs) => {
  const e = document.createElementNS(ns, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return svg.appendChild(e);
};
const drawn = D.lines.map(([h, q, k], n) => make("line", {
  x1: "38%", x2: "62%", y1: y(D.rowPos[q]), y2: y(D.keyPos[k]), stroke: D.colours[h],
  "stroke-opacity": D.weights[n], "stroke-width": 1 + 2 * D.weights[n], "data-h": h, "data-q": q, "data-k": k,
  "data-w": D.weights[n]}));
drawn.forEach((l, n) => { const t = document.createElementNS(ns, "title");
  const [h, q, k] = D.lines[n]; t.textContent = `${D.heads[h]}: ${D.rows[q]} → ${D.keys[k]} ${D.weights[n]}`;
  l.appendChild(t); });
function show() {
  drawn.forEach((l, n) => { const [h, q, k] = D.lines[n];
    const mine = focus === null || (focus[0] === "q" ? q === focus[1] : k === focus[1]);
    l.style.display = on[h] && mine ? "" : "none"; });
  svg.querySelectorAll("text").forEach(t => t.classList.toggle("on",
    focus !== null && t.dataset.side === focus[0] && +t.dataset.i === focus[1]));
}
const token = (side, i, label, pos) => {
  const t = make("text", {x: side === "q" ? "36%" : "64%", y: y(pos), "text-anchor": side === "q" ? "end" : "start",
                          "dominant-baseline": "middle", "data-side": side, "data-i": i});
  t.textContent = label;
  t.addEventListener("mouseenter", () => { focus = [side, i]; show(); });
  t.addEventListener("mouseleave", () => { focus = null; show(); });
};
D.rows.forEach((label, i) => token("q", i, label, D.rowPos[i]));
D.keys.forEach((label, i) => token("k", i, label, D.keyPos[i]));
D.heads.forEach((name, h) => {
  const s = document.getElementById("heads").appendChild(document.createElement("span"));
  const swatch = s.appendChild(document.createElement("i"));
  swatch.style.background = D.colours[h];
  s.appendChild(document.createTextNode(name));
  s.dataset.h = h;
  s.addEventListener("click", () => { on[h] = !on[h]; s.classList.toggle("off", !on[h]); show(); });
});
})();
</script></body></html>"""
