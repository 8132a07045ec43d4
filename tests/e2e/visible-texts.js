/**
 * The visible texts under a root, smallest rendered size first (tests/e2e/support.ts,
 * visibleTexts). Plain JavaScript because it runs in the page, outside the Node project's type
 * settings; support.ts reads this file and evaluates it there.
 */
({ within, limit }) => {
  const root = document.querySelector(within) ?? document.body;
  const scaleOf = (el) => {
    let scale = 1;
    for (let at = el; at; at = at.parentElement) {
      const style = getComputedStyle(at);
      const zoom = Number(style.zoom);
      if (Number.isFinite(zoom) && zoom > 0) scale *= zoom;
      if (style.transform && style.transform !== 'none') {
        const m = new DOMMatrixReadOnly(style.transform);
        scale *= Math.hypot(m.a, m.b);
      }
    }
    return scale;
  };
  const describe = (el) => {
    const parts = [];
    for (let at = el; at && parts.length < 3; at = at.parentElement) {
      const id = at.getAttribute('data-testid');
      const cls = typeof at.className === 'string' ? at.className.trim().split(/\s+/) : [];
      parts.push(
        id ? `[data-testid=${id}]` : `${at.tagName.toLowerCase()}${cls[0] ? `.${cls[0]}` : ''}`,
      );
    }
    return parts.join(' < ');
  };
  const clipped = (el, rect) => {
    let { left, top, right, bottom } = rect;
    left = Math.max(left, 0);
    top = Math.max(top, 0);
    right = Math.min(right, window.innerWidth);
    bottom = Math.min(bottom, window.innerHeight);
    for (let at = el.parentElement; at; at = at.parentElement) {
      const style = getComputedStyle(at);
      if (style.overflowX === 'visible' && style.overflowY === 'visible') continue;
      const box = at.getBoundingClientRect();
      left = Math.max(left, box.left);
      top = Math.max(top, box.top);
      right = Math.min(right, box.right);
      bottom = Math.min(bottom, box.bottom);
    }
    return right - left < 1 || bottom - top < 1;
  };
  const found = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const range = document.createRange();
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent?.trim() ?? '';
    const el = node.parentElement;
    if (!text || !el) continue;
    if (!el.checkVisibility({ visibilityProperty: true, opacityProperty: true })) continue;
    range.selectNodeContents(node);
    const rects = [...range.getClientRects()].filter((r) => r.width > 0 && r.height > 0);
    if (!rects.some((r) => !clipped(el, r))) continue;
    const px = Number.parseFloat(getComputedStyle(el).fontSize) * scaleOf(el);
    found.push({ px: Math.round(px * 100) / 100, text: text.slice(0, 40), where: describe(el) });
  }
  // Text drawn by CSS (`content` of ::before and ::after) counts too.
  for (const el of root.querySelectorAll('*')) {
    for (const pseudo of ['::before', '::after']) {
      const style = getComputedStyle(el, pseudo);
      const content = style.content;
      if (!content || content === 'none' || content === 'normal') continue;
      const attr = /attr\(([\w-]+)\)/.exec(content)?.[1];
      const text = (attr ? (el.getAttribute(attr) ?? '') : content.replace(/^"|"$/g, '')).trim();
      if (!text || style.display === 'none' || style.visibility !== 'visible') continue;
      if (!el.checkVisibility({ opacityProperty: true })) continue;
      if (Number(style.opacity) === 0 || clipped(el, el.getBoundingClientRect())) continue;
      const px = Number.parseFloat(style.fontSize) * scaleOf(el);
      found.push({
        px: Math.round(px * 100) / 100,
        text: text.slice(0, 40),
        where: `${pseudo} of ${describe(el)}`,
      });
    }
  }
  return found.sort((a, b) => a.px - b.px).slice(0, limit);
};
