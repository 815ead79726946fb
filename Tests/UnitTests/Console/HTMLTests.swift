import Testing

@testable import Console

/// The console's markup is escaped by construction: whatever goes into a page from outside is text
/// unless it is HTML itself.
@Suite("Console HTML")
struct HTMLTests {
    static let hostile = "<script>alert('x')</script> & \"quoted\""

    @Test("text interpolated into markup is escaped, quotes included; markup interpolated stays markup")
    func escapesUnlessMarkup() {
        let link: HTML = "<a href=\"/jobs?batch=\(Self.hostile)\">\(Self.hostile)</a>"
        #expect(
            link.markup == "<a href=\"/jobs?batch=&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;quoted&quot;\">"
                + "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;quoted&quot;</a>")
        let row: HTML = "<td>\(link)</td>"
        #expect(row.markup == "<td>" + link.markup + "</td>", "HTML goes in as it is, never escaped twice")
        let missing: String? = nil
        #expect(("<b>\(missing)</b>" as HTML).markup == "<b></b>")
        #expect(("\(42)" as HTML).markup == "42")
    }

    @Test("control characters become U+FFFD; line breaks and tabs stay")
    func controlCharacters() {
        #expect(("\("a\u{0}b\u{1B}c\nd\te")" as HTML).markup == "a\u{FFFD}b\u{FFFD}c\nd\te")
    }

    @Test("parts joined, added and appended keep what they are")
    func joining() {
        let items: [HTML] = ["<li>\("a&b")</li>", "<li>\("<c>")</li>"]
        var list: HTML = "<ul>" + items.joined(separator: "\n") + "</ul>"
        list += "<p>\("\"")</p>"
        #expect(list.markup == "<ul><li>a&amp;b</li>\n<li>&lt;c&gt;</li></ul><p>&quot;</p>")
        #expect(([] as [HTML]).joined().isEmpty)
    }

    @Test("a page's title and body from outside reach the browser as text")
    func pageFrame() {
        let page = Page(title: Self.hostile, active: "/", body: "<p>\(Self.hostile)</p>").render(readOnly: false)
        #expect(!page.contains("<script>alert"))
        #expect(page.contains("<title>&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;quoted&quot; · discern</title>"))
    }
}
