import Foundation

/// A file or buffer read through a window of at most `windowSize` bytes: walking the structure
/// of a 200 MB PNG holds one megabyte of it, never the whole file. The window is one buffer,
/// filled again as the walk moves on, and what is sent is read once, straight into the `Data`
/// that leaves: no array per window, no copy between (docs/decisions/0001-byte-window.md).
final class ByteWindow {
    /// Copies bytes from `offset` into `buffer`, as many as fit or as the source still has;
    /// returns how many.
    typealias Reader = (_ offset: Int, _ buffer: UnsafeMutableRawBufferPointer) throws(ImagingError) -> Int

    /// How many bytes the source had when opened; reads past what it still has come back short.
    let count: Int
    static let windowSize = 1 << 20
    /// This window's size: `windowSize` unless a walk reads only headers (`ImageInput.window`).
    private let size: Int
    private let read: Reader
    private var window: [UInt8] = []
    private var start = 0
    private var filled = 0

    init(count: Int, size: Int = ByteWindow.windowSize, read: @escaping Reader) {
        self.count = count
        self.size = max(16, size)
        self.read = read
    }

    convenience init(_ bytes: [UInt8]) {
        self.init(count: bytes.count) { offset, buffer in
            let available = max(0, min(buffer.count, bytes.count - offset))
            bytes.withUnsafeBytes { source in
                if available > 0 { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[offset..<(offset + available)])) }
            }
            return available
        }
    }

    /// The byte at `offset`, or nil past the end.
    func byte(_ offset: Int) throws(ImagingError) -> UInt8? {
        guard offset >= 0, offset < count else { return nil }
        if offset < start || offset >= start + filled { try load(at: offset) }
        let index = offset - start
        return index < filled ? window[index] : nil
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
            let end = min(range.upperBound, start + filled)
            body(window[(offset - start)..<(end - start)])
            offset = end
        }
        return true
    }

    /// Where a JPEG's entropy-coded data ends: the offset of the next 0xFF that starts a marker
    /// (not a stuffed 0xFF00, a restart marker or a fill byte), at or after `offset`; nil when
    /// the source ends first. One loop over the window, not a call per 0xFF: a noisy photo has
    /// one every few hundred bytes.
    func nextMarker(from offset: Int) throws(ImagingError) -> Int? {
        var offset = offset
        while try byte(offset) != nil {
            let from = offset - start, end = filled
            let found: Int? = window.withUnsafeBytes { buffer in
                guard let base = buffer.baseAddress else { return nil }
                var index = from
                while index < end - 1, let hit = memchr(base + index, 0xFF, end - 1 - index) {
                    let at = base.distance(to: UnsafeRawPointer(hit)), next = buffer[at + 1]
                    if next != 0x00, next != 0xFF, !(0xD0...0xD7).contains(next) { return at }
                    index = at + 1
                }
                return nil
            }
            if let found { return found + start }
            // None before the window's last byte, which may be a 0xFF whose next byte is in the
            // next window: go on from it.
            let last = start + end - 1
            guard last > offset else {
                guard try byte(offset + 1) != nil else { return nil }
                try load(at: offset)
                continue
            }
            offset = last
        }
        return nil
    }

    /// The bytes of `ranges`, joined: what a pass-through sends, read once into it.
    func gather(_ ranges: [Range<Int>]) throws(ImagingError) -> Data {
        var data = Data(count: ranges.reduce(0) { $0 + $1.count })
        let outcome = data.withUnsafeMutableBytes { (buffer: UnsafeMutableRawBufferPointer) -> Result<Void, ImagingError> in
            var at = 0
            for range in ranges {
                let part = UnsafeMutableRawBufferPointer(rebasing: buffer[at..<(at + range.count)])
                do throws(ImagingError) {
                    guard try read(range.lowerBound, part) == range.count else {
                        return .failure(ImagingError(.truncated, "the file shrank while it was read (it is being written)"))
                    }
                } catch {
                    return .failure(error)
                }
                at += range.count
            }
            return .success(())
        }
        try outcome.get()
        return data
    }

    private func load(at offset: Int) throws(ImagingError) {
        if window.isEmpty { window = [UInt8](repeating: 0, count: size) }
        let outcome: Result<Int, ImagingError> = window.withUnsafeMutableBytes { buffer in
            do throws(ImagingError) { return .success(try read(offset, buffer)) } catch { return .failure(error) }
        }
        start = offset
        filled = 0
        filled = try outcome.get()
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
