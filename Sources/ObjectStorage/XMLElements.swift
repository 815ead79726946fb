import Foundation
#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Collects the text of chosen elements of an XML document with a streaming parser: those at
/// the top level (children of the root; with `anyDepth`, at any depth outside a group), or
/// within each `grouping` element (at any depth inside it). Entities are not resolved from outside.
final class ElementReader: NSObject, XMLParserDelegate {
    let wanted: Set<String>
    let grouping: String?
    let anyDepth: Bool
    private(set) var root: String?
    private(set) var top: [String: String] = [:]
    private(set) var groups: [[String: String]] = []
    private var group: [String: String]?
    private var depth = 0
    private var text = ""

    init(wanted: Set<String>, grouping: String?, anyDepth: Bool = false) {
        self.wanted = wanted
        self.grouping = grouping
        self.anyDepth = anyDepth
    }

    func read(_ data: Data) -> Bool {
        let parser = XMLParser(data: data)
        parser.delegate = self
        parser.shouldResolveExternalEntities = false
        return parser.parse()
    }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:])
    {
        depth += 1
        if depth == 1 { root = name }
        if depth == 2, name == grouping { group = [:] }
        text = ""
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        // A key holds at most 1,024 bytes and a session token a few: a longer text is not one
        // of the elements read.
        if text.utf8.count < 8192 { text += string }
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        if depth == 2, name == grouping, let finished = group {
            groups.append(finished)
            group = nil
        } else if wanted.contains(name) {
            if depth >= 3, group != nil {
                group?[name] = text
            } else if depth == 2 || (anyDepth && depth > 1 && group == nil) {
                top[name] = text
            }
        }
        depth -= 1
        text = ""
    }
}
