/* The report page's skeleton: escaping, the style sheet, the one script and its CSP hash, cards, tables. */
#include "base/setup.h"

#include <math.h>
#include <openssl/evp.h>

#include "kernelpro/hash.h"
#include "report/report_int.h"

/* Nothing from a run is ever inside <style> or <script>: both are fixed text. */
static const char style[] =
    ":root{--fg:#1f2937;--muted:#6b7280;--line:#e5e7eb;--panel:#f8fafc;--eager:#2563eb;--compile:#ea580c;"
    "--ok:#16a34a;--bad:#dc2626;--warn:#d97706;--grey:#9ca3af}\n"
    "*{box-sizing:border-box}\n"
    "body{margin:0;font:14px/1.5 system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',Arial,sans-serif;"
    "color:var(--fg);background:#fff}\n"
    "main{max-width:1320px;margin:0 auto;padding:24px 28px 48px}\n"
    "h1{font-size:24px;margin:0 0 4px}\n"
    ".sub{color:var(--muted);margin:0 0 20px}\n"
    "h2{font-size:18px;margin:36px 0 12px;padding-bottom:6px;border-bottom:1px solid var(--line)}\n"
    "h3{font-size:15px;margin:20px 0 8px}\n"
    ".cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(165px,1fr));gap:12px}\n"
    ".card{background:var(--panel);border:1px solid var(--line);border-radius:8px;padding:10px 14px}\n"
    ".card .label{font-size:12px;color:var(--muted);text-transform:uppercase;letter-spacing:.04em}\n"
    ".card .value{font-size:22px;font-weight:600;font-variant-numeric:tabular-nums}\n"
    ".card .detail{font-size:12px;color:var(--muted)}\n"
    ".figure{margin:8px 0 4px}\n"
    ".figure svg.plot{width:100%;max-width:880px;height:auto;display:block}\n"
    ".figure svg.plot.fixed{width:auto;max-width:none}\n"
    ".scroll{overflow-x:auto;border:1px solid var(--line);border-radius:8px;padding:4px}\n"
    ".caption,.note{font-size:13px;color:var(--muted);max-width:880px}\n"
    ".empty{padding:14px;border:1px dashed "
    "var(--line);border-radius:8px;color:var(--muted);max-width:880px}\n"
    "table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums;font-size:13px}\n"
    "th,td{padding:5px 8px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}\n"
    "th.num,td.num{text-align:right;white-space:nowrap}\n"
    "th{background:var(--panel);position:sticky;top:0;cursor:pointer;user-select:none}\n"
    "th[aria-sort=ascending]::after{content:' \\25B2'}\n"
    "th[aria-sort=descending]::after{content:' \\25BC'}\n"
    "tbody tr:hover{background:#f3f4f6}\n"
    ".tablewrap{max-height:640px;overflow:auto;border:1px solid var(--line);border-radius:8px}\n"
    ".oc{display:inline-block;padding:0 "
    "7px;border-radius:10px;font-size:12px;color:#fff;white-space:nowrap}\n"
    "pre{white-space:pre-wrap;word-break:break-word;background:var(--panel);border:1px solid var(--line);"
    "border-radius:6px;padding:8px 10px;font:12px/1.45 ui-monospace,'DejaVu Sans "
    "Mono',monospace;max-height:420px;"
    "overflow:auto}\n"
    "details{border:1px solid var(--line);border-radius:8px;margin:8px 0;padding:6px 12px}\n"
    "summary{cursor:pointer}\n"
    "ul.findings{margin:4px 0 8px;padding-left:20px}\n"
    "svg.plot{font-family:system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',Arial,sans-serif}\n"
    ".grid{stroke:#edf0f3;stroke-width:1}\n"
    ".frame{fill:none;stroke:#9ca3af;stroke-width:1}\n"
    ".tick{font-size:12px;fill:#4b5563}\n"
    ".axis-label{font-size:13px;fill:#111827;font-weight:600}\n"
    ".legend{font-size:12px;fill:#111827}\n"
    ".legend-box{fill:#fff;fill-opacity:.92;stroke:#e5e7eb}\n"
    ".annot{font-size:12px;fill:#4b5563}\n"
    ".guide{stroke:#9ca3af;stroke-dasharray:4 4;stroke-width:1;fill:none}\n"
    ".line{fill:none;stroke-width:2.4;stroke-linejoin:round}\n"
    ".line.eager{stroke:var(--eager)}.line.compile{stroke:var(--compile)}\n"
    ".line.best{stroke:var(--ok)}.line.roof{stroke:#374151;stroke-width:2}\n"
    ".line.arrow{stroke:#374151;stroke-width:1.5;stroke-dasharray:5 3}\n"
    ".line.edge{stroke:#cbd5e1;stroke-width:1.5}.line.edge.path{stroke:var(--ok);stroke-width:3}\n"
    ".mark{stroke:#fff;stroke-width:1}\n"
    ".mark.eager,.swatch.eager{fill:var(--eager)}.mark.compile,.swatch.compile{fill:var(--compile)}\n"
    ".mark.ref,.swatch.ref{fill:#6b7280}.mark.best,.swatch.best{fill:var(--ok)}\n"
    ".mark.fail,.swatch.fail{fill:none;stroke:var(--bad);stroke-width:1.6}\n"
    ".mark.nocorrect,.swatch.nocorrect{fill:var(--grey)}\n"
    ".o-correct{fill:var(--ok);background:var(--ok)}\n"
    ".o-compile_error{fill:#dc2626;background:#dc2626}\n"
    ".o-runtime_error{fill:#b45309;background:#b45309}\n"
    ".o-timeout{fill:#a16207;background:#a16207}\n"
    ".o-wrong_output{fill:#9333ea;background:#9333ea}\n"
    ".o-cheat_suspected{fill:#111827;background:#111827}\n"
    ".o-pending{fill:var(--grey);background:var(--grey)}\n"
    ".node-label{font-size:11px;fill:#111827}\n"
    ".node-best{stroke:#111827;stroke-width:2.5}\n"
    ".facts{margin:0 0 16px;padding:0;display:flex;flex-wrap:wrap;gap:4px 18px;font-size:13px}\n"
    ".facts div{display:flex;gap:6px}.facts dt{color:var(--muted)}.facts dd{margin:0;font-weight:600}\n"
    "a{color:#1d4ed8}a.small,.small{font-size:12px}\n"
    "td .why{display:block;font-size:12px;color:var(--muted);max-width:340px;overflow-wrap:anywhere}\n"
    "#tasks td:first-child{overflow-wrap:anywhere;min-width:120px}\n"
    ".diff span{display:block;min-height:1.45em}.diff .add{background:#dcfce7}.diff "
    ".del{background:#fee2e2}\n"
    ".diff .hunk{color:var(--muted);margin-top:4px}\n";

/* Table sorting: numeric columns by data-v (missing last), text columns by their text. */
static const char script[] =
    "(function(){\n"
    "document.querySelectorAll('table.sortable').forEach(function(t){\n"
    "  var heads=t.tHead.rows[0].cells;\n"
    "  Array.prototype.forEach.call(heads,function(th,i){\n"
    "    th.addEventListener('click',function(){\n"
    "      var asc=th.getAttribute('aria-sort')!=='ascending',num=th.classList.contains('num');\n"
    "      Array.prototype.forEach.call(heads,function(h){h.removeAttribute('aria-sort');});\n"
    "      th.setAttribute('aria-sort',asc?'ascending':'descending');\n"
    "      var body=t.tBodies[0],rows=Array.prototype.slice.call(body.rows);\n"
    "      rows.sort(function(a,b){\n"
    "        var x=a.cells[i].getAttribute('data-v'),y=b.cells[i].getAttribute('data-v');\n"
    "        if(num){x=x===''?NaN:+x;y=y===''?NaN:+y;\n"
    "          if(isNaN(x))return isNaN(y)?0:1;if(isNaN(y))return -1;return asc?x-y:y-x;}\n"
    "        return asc?x.localeCompare(y):y.localeCompare(x);\n"
    "      });\n"
    "      rows.forEach(function(r){body.appendChild(r);});\n"
    "    });\n"
    "  });\n"
    "});\n"
    "})();\n";

void kp_html_escape(struct kp_buf *b, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
		switch (*p) {
		case '&': kp_buf_adds(b, "&amp;"); break;
		case '<': kp_buf_adds(b, "&lt;"); break;
		case '>': kp_buf_adds(b, "&gt;"); break;
		case '"': kp_buf_adds(b, "&quot;"); break;
		case '\'': kp_buf_adds(b, "&#39;"); break;
		case '\t':
		case '\n': kp_buf_addch(b, (char)*p); break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				kp_buf_adds(b, "\xef\xbf\xbd"); /* U+FFFD */
			else
				kp_buf_addch(b, (char)*p);
		}
	}
}

/* 'sha256-<base64>' of the script, for the Content-Security-Policy. */
static void script_hash(char out[64])
{
	char hex[KP_SHA256_HEX_LEN + 1];
	unsigned char md[32];
	kp_sha256_hex(script, strlen(script), hex);
	for (int i = 0; i < 32; i++) {
		unsigned hi = (unsigned)(hex[2 * i] <= '9' ? hex[2 * i] - '0' : hex[2 * i] - 'a' + 10);
		unsigned lo =
		    (unsigned)(hex[2 * i + 1] <= '9' ? hex[2 * i + 1] - '0' : hex[2 * i + 1] - 'a' + 10);
		md[i] = (unsigned char)(hi << 4 | lo);
	}
	EVP_EncodeBlock((unsigned char *)out, md, 32); /* 44 characters and a NUL */
}

void kp_html_begin(struct kp_buf *b, const char *title)
{
	char hash[64];
	script_hash(hash);
	kp_buf_adds(b, "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
	kp_buf_addf(b,
	            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	            "style-src 'unsafe-inline'; script-src 'sha256-%s'; img-src data:\">\n",
	            hash);
	kp_buf_adds(b, "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	               "<meta name=\"generator\" content=\"kernelpro " KP_VERSION "\">\n<title>");
	kp_html_escape(b, title);
	kp_buf_addf(b, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<main>\n", style);
}

void kp_html_end(struct kp_buf *b)
{
	kp_buf_addf(b,
	            "<p class=\"note\">Made by kernelpro %s. The page is self-contained: nothing is fetched "
	            "when it is viewed.</p>\n</main>\n<script>%s</script>\n</body>\n</html>\n",
	            KP_VERSION, script);
}

void kp_html_heading(struct kp_buf *b, const char *title, const char *subtitle)
{
	kp_buf_adds(b, "<h1>");
	kp_html_escape(b, title);
	kp_buf_adds(b, "</h1>\n");
	if (subtitle) {
		kp_buf_adds(b, "<p class=\"sub\">");
		kp_html_escape(b, subtitle);
		kp_buf_adds(b, "</p>\n");
	}
}

void kp_html_section(struct kp_buf *b, const char *id, const char *title)
{
	kp_buf_addf(b, "<section id=\"s-%s\">\n<h2>", id);
	kp_html_escape(b, title);
	kp_buf_adds(b, "</h2>\n");
}

void kp_html_section_end(struct kp_buf *b)
{
	kp_buf_adds(b, "</section>\n");
}

void kp_html_para(struct kp_buf *b, const char *cls, const char *text)
{
	kp_buf_addf(b, "<p class=\"%s\">", cls);
	kp_html_escape(b, text);
	kp_buf_adds(b, "</p>\n");
}

void kp_html_cards_begin(struct kp_buf *b)
{
	kp_buf_adds(b, "<div class=\"cards\">\n");
}

void kp_html_card(struct kp_buf *b, const char *label, const char *value, const char *detail)
{
	kp_buf_adds(b, "<div class=\"card\"><div class=\"label\">");
	kp_html_escape(b, label);
	kp_buf_adds(b, "</div><div class=\"value\">");
	kp_html_escape(b, value);
	kp_buf_adds(b, "</div>");
	if (detail) {
		kp_buf_adds(b, "<div class=\"detail\">");
		kp_html_escape(b, detail);
		kp_buf_adds(b, "</div>");
	}
	kp_buf_adds(b, "</div>\n");
}

void kp_html_cards_end(struct kp_buf *b)
{
	kp_buf_adds(b, "</div>\n");
}

void kp_html_table_begin(struct kp_buf *b, const char *id, const char *const *cols)
{
	kp_buf_addf(b, "<div class=\"tablewrap\"><table class=\"sortable\" id=\"%s\">\n<thead><tr>", id);
	for (size_t i = 0; cols[i]; i++) {
		int num = cols[i][0] == '#';
		kp_buf_addf(b, "<th%s>", num ? " class=\"num\"" : "");
		kp_html_escape(b, cols[i] + num);
		kp_buf_adds(b, "</th>");
	}
	kp_buf_adds(b, "</tr></thead>\n<tbody>\n");
}

void kp_html_table_end(struct kp_buf *b)
{
	kp_buf_adds(b, "</tbody>\n</table></div>\n");
}

void kp_html_td(struct kp_buf *b, const char *text)
{
	kp_buf_adds(b, "<td data-v=\"");
	kp_html_escape(b, text);
	kp_buf_adds(b, "\">");
	kp_html_escape(b, text);
	kp_buf_adds(b, "</td>");
}

void kp_html_td_num(struct kp_buf *b, double v, const char *text)
{
	if (isfinite(v))
		kp_buf_addf(b, "<td class=\"num\" data-v=\"%.17g\">", v);
	else
		kp_buf_adds(b, "<td class=\"num\" data-v=\"\">");
	kp_html_escape(b, text);
	kp_buf_adds(b, "</td>");
}

void kp_html_td_begin(struct kp_buf *b, const char *sort_key)
{
	kp_buf_adds(b, "<td data-v=\"");
	kp_html_escape(b, sort_key);
	kp_buf_adds(b, "\">");
}

void kp_html_href(struct kp_buf *b, const char *path)
{
	static const char hex[] = "0123456789ABCDEF";
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		int plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		            (*p >= '0' && *p <= '9') || strchr("/._-~", *p);
		if (plain) {
			kp_buf_addch(b, (char)*p);
		} else {
			kp_buf_addch(b, '%');
			kp_buf_addch(b, hex[*p >> 4]);
			kp_buf_addch(b, hex[*p & 15]);
		}
	}
}

void kp_html_link(struct kp_buf *b, const char *path, const char *fragment, const char *cls, const char *text)
{
	kp_buf_adds(b, "<a href=\"");
	kp_html_href(b, path);
	if (fragment) {
		kp_buf_addch(b, '#');
		kp_html_href(b, fragment);
	}
	kp_buf_addch(b, '"');
	if (cls)
		kp_buf_addf(b, " class=\"%s\"", cls);
	kp_buf_addch(b, '>');
	kp_html_escape(b, text);
	kp_buf_adds(b, "</a>");
}

void kp_html_facts(struct kp_buf *b, size_t n, const char *const *labels, const char *const *values)
{
	kp_buf_adds(b, "<dl class=\"facts\">");
	for (size_t i = 0; i < n; i++) {
		if (!values[i])
			continue;
		kp_buf_adds(b, "<div><dt>");
		kp_html_escape(b, labels[i]);
		kp_buf_adds(b, "</dt><dd>");
		kp_html_escape(b, values[i]);
		kp_buf_adds(b, "</dd></div>");
	}
	kp_buf_adds(b, "</dl>\n");
}

const char *kp_html_fmt(char *buf, size_t n, const char *fmt, ...)
{
	va_list ap, peek;
	va_start(ap, fmt);
	va_copy(peek, ap);
	if (!isfinite(va_arg(peek, double)))
		snprintf(buf, n, "\xe2\x80\x94"); /* em dash */
	else
		vsnprintf(buf, n, fmt, ap);
	va_end(peek);
	va_end(ap);
	return buf;
}

const char *kp_html_speedup(char *buf, size_t n, double v)
{
	return kp_html_fmt(buf, n, v >= 100 ? "%.0f\xc3\x97" : v >= 10 ? "%.1f\xc3\x97" : "%.2f\xc3\x97", v);
}

const char *kp_html_pct(char *buf, size_t n, double v)
{
	return kp_html_fmt(buf, n, "%.0f%%", v * 100);
}

const char *kp_html_duration(char *buf, size_t n, double s)
{
	if (!isfinite(s) || s < 0)
		return kp_html_fmt(buf, n, "%g", NAN);
	if (s < 60)
		snprintf(buf, n, "%.0fs", s);
	else if (s < 3600)
		snprintf(buf, n, "%dm%02ds", (int)(s / 60), (int)fmod(s, 60));
	else
		snprintf(buf, n, "%dh%02dm", (int)(s / 3600), (int)fmod(s / 60, 60));
	return buf;
}
