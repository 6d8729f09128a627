/**
 * A pull request's Markdown as the fake GitHub's web page shows it: headings, lists, tables,
 * code, and a Mermaid flowchart (the kind MAKER writes: boxes, arrows, classes) drawn as a tree of
 * coloured boxes. Everything is escaped: the text comes from models and must never become markup.
 * Not GitHub's renderer: enough to read what MAKER wrote.
 */

export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** Inline Markdown: `code`, **bold** and [links](http…) (links to http(s) only). */
function inline(text: string): string {
  return escapeHtml(text)
    .replace(/`([^`]+)`/g, '<code>$1</code>')
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')
    .replace(
      /\[([^\]]+)\]\((https?:\/\/[^\s)"]+)\)/g,
      (_m, label: string, href: string) => `<a href="${href}">${label}</a>`,
    );
}

export function markdownHtml(markdown: string): string {
  const lines = markdown.split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const fence = /^```\s*(\w*)\s*$/.exec(line);
    if (fence !== null) {
      const body: string[] = [];
      while (++i < lines.length && !/^```\s*$/.test(lines[i] as string))
        body.push(lines[i] as string);
      out.push(
        fence[1] === 'mermaid'
          ? diagramHtml(body.join('\n'))
          : `<pre><code>${escapeHtml(body.join('\n'))}</code></pre>`,
      );
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading !== null) {
      const level = Math.min(6, (heading[1] as string).length + 1);
      out.push(`<h${level}>${inline(heading[2] as string)}</h${level}>`);
    } else if (/^\s*\|.*\|\s*$/.test(line)) {
      const rows: string[] = [];
      for (; i < lines.length && /^\s*\|.*\|\s*$/.test(lines[i] as string); i++) {
        const cells = (lines[i] as string).trim().slice(1, -1).split('|');
        if (cells.every((c) => /^\s*:?-+:?\s*$/.test(c))) continue;
        const tag = rows.length === 0 ? 'th' : 'td';
        rows.push(`<tr>${cells.map((c) => `<${tag}>${inline(c.trim())}</${tag}>`).join('')}</tr>`);
      }
      i--;
      out.push(`<table>${rows.join('')}</table>`);
    } else if (/^\s*[-*]\s+/.test(line)) {
      const depth = Math.floor((/^\s*/.exec(line)?.[0].length ?? 0) / 2);
      out.push(
        `<div class="li" style="margin-left:${depth * 1.2}em">• ${inline(line.replace(/^\s*[-*]\s+/, ''))}</div>`,
      );
    } else if (/^>\s?/.test(line))
      out.push(`<blockquote>${inline(line.replace(/^>\s?/, ''))}</blockquote>`);
    else if (line.trim() !== '') out.push(`<p>${inline(line)}</p>`);
  }
  return out.join('\n');
}

interface Box {
  label: string;
  style: string;
  children: string[];
}

/**
 * A Mermaid flowchart as nested boxes. Its labels use Mermaid's entity codes (`#35;`) and `<br/>`
 * line breaks, decoded here to text, then escaped. A diagram of another kind is shown as its source.
 */
export function diagramHtml(source: string): string {
  const lines = source.split('\n').map((l) => l.trim());
  if (!/^(flowchart|graph)\b/.test(lines[0] ?? ''))
    return `<pre><code>${escapeHtml(source)}</code></pre>`;
  const boxes = new Map<string, Box>();
  const classes = new Map<string, string>();
  const hasParent = new Set<string>();
  for (const line of lines.slice(1)) {
    let m = /^(\w+)\["(.*)"\]$/.exec(line);
    if (m !== null) {
      boxes.set(m[1] as string, { label: m[2] as string, style: '', children: [] });
      continue;
    }
    m = /^(\w+)\s*-->\s*(\w+)$/.exec(line);
    if (m !== null) {
      boxes.get(m[1] as string)?.children.push(m[2] as string);
      hasParent.add(m[2] as string);
      continue;
    }
    m = /^classDef (\w+) (.*)$/.exec(line);
    if (m !== null) {
      const style = (m[2] as string)
        .split(',')
        .map((p) => /^(fill|stroke|color):(#[0-9a-fA-F]{3,8})$/.exec(p.trim()))
        .filter((p): p is RegExpExecArray => p !== null)
        .map(
          (p) =>
            `${p[1] === 'fill' ? 'background' : p[1] === 'stroke' ? 'border-color' : 'color'}:${p[2]}`,
        )
        .join(';');
      classes.set(m[1] as string, style);
      continue;
    }
    m = /^class ([\w,]+) (\w+)$/.exec(line);
    if (m !== null)
      for (const id of (m[1] as string).split(',')) {
        const box = boxes.get(id);
        if (box !== undefined) box.style = classes.get(m[2] as string) ?? '';
      }
  }
  const drawn = new Set<string>();
  const draw = (id: string): string => {
    const box = boxes.get(id);
    if (box === undefined || drawn.has(id)) return '';
    drawn.add(id);
    const text = box.label
      .split('<br/>')
      .map((part) => escapeHtml(part.replace(/#(\d{1,7});/g, (_m, n: string) => codePoint(n))))
      .join('<br>');
    const kids = box.children.map(draw).filter((k) => k !== '');
    return `<li><span class="box" style="${box.style}">${text}</span>${kids.length === 0 ? '' : `<ul>${kids.join('')}</ul>`}</li>`;
  };
  const roots = [...boxes.keys()].filter((id) => !hasParent.has(id));
  return `<ul class="diagram">${roots.map(draw).join('')}</ul>`;
}

/** A Mermaid entity's character (`#35;` is `#`); a number past Unicode's end stays as written. */
function codePoint(n: string): string {
  const value = Number(n);
  return value <= 0x10ffff ? String.fromCodePoint(value) : `#${n};`;
}
