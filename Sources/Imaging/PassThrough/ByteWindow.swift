/// A file or buffer read through a window of at most `windowSize` bytes: walking the structure
/// of a 200 MB PNG holds one megabyte of it, not the file (issue 22: 465 MB peak for one image).
final class ByteWindow {
    /// How many bytes the source had when opened; reads past what it still has come back short.
    let count: Int
    static let windowSize = 1 << 20
    private let fetch: (_ offset: Int, _ count: Int) throws(ImagingError) -> [UInt8]
    private var window: [UInt8] = []
    private var start = 0

    init(count: Int, fetch: @escaping (_ offset: Int, _ count: Int) throws(ImagingError) -> [UInt8]) {
        self.count = count
        self.fetch = fetch
    }

    convenience init(_ bytes: [UInt8]) {
        self.init(count: bytes.count) { offset, count in Array(bytes[min(offset, bytes.count)..<min(offset + count, bytes.count)]) }
    }

    /// The byte at `offset`, or nil past the end.
    func byte(_ offset: Int) throws(ImagingError) -> UInt8? {
        guard offset >= 0, offset < count else { return nil }
        if offset < start || offset >= start + window.count { try load(at: offset) }
        let index = offset - start
        return index < window.count ? window[index] : nil
    }

    /// A big-endian number of `width` bytes at `offset`, or nil past the end.
    func number(_ offset: Int, width: Int) throws(ImagingError) -> Int? {
        var value = 0
        for index in 0..<width {
            guard let byte = try byte(offset + index) else { return nil }
            value = value << 8 | Int(byte)
        }
        return value
    }

    /// The bytes of a short `range` (a chunk type, a segment's first bytes), or nil past the end.
    func bytes(_ range: Range<Int>) throws(ImagingError) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(range.count)
        for offset in range {
            guard let byte = try byte(offset) else { return nil }
            bytes.append(byte)
        }
        return bytes
    }

    /// Hands `range` to `body` one window at a time (a CRC over a 100 MB chunk); false when the
    /// source ends first.
    func forEachBlock(_ range: Range<Int>, _ body: (ArraySlice<UInt8>) -> Void) throws(ImagingError) -> Bool {
        var offset = range.lowerBound
        while offset < range.upperBound {
            guard try byte(offset) != nil else { return false }
            let end = min(range.upperBound, start + window.count)
            body(window[(offset - start)..<(end - start)])
            offset = end
        }
        return true
    }

    /// The first offset at or after `offset` holding `value`, or nil when the source ends first.
    func firstOffset(of value: UInt8, from offset: Int) throws(ImagingError) -> Int? {
        var offset = offset
        while try byte(offset) != nil {
            if let found = window[(offset - start)...].firstIndex(of: value) { return found + start }
            offset = start + window.count
        }
        return nil
    }

    /// The bytes of `ranges`, joined: what a pass-through sends.
    func gather(_ ranges: [Range<Int>]) throws(ImagingError) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(ranges.reduce(0) { $0 + $1.count })
        for range in ranges {
            guard try forEachBlock(range, { bytes += $0 }) else {
                throw ImagingError(.truncated, "the file shrank while it was read (it is being written)")
            }
        }
        return bytes
    }

    private func load(at offset: Int) throws(ImagingError) {
        window = try fetch(offset, Self.windowSize)
        start = offset
    }
}

/// The parts of a file a walk keeps, as byte ranges of the file: adjacent ones are merged.
struct KeptRanges: Equatable {
    private(set) var ranges: [Range<Int>] = []
    var count: Int { ranges.reduce(0) { $0 + $1.count } }

    mutating func append(_ range: Range<Int>) {
        guard !range.isEmpty else { return }
        if let last = ranges.last, last.upperBound == range.lowerBound {
            ranges[ranges.count - 1] = last.lowerBound..<range.upperBound
        } else {
            ranges.append(range)
        }
    }
}
