import Testing
@testable import Imaging

/// A progressive JPEG holds its coefficients for the whole picture while it decodes, at any
/// scale: several times what the same photo holds sequential. The memory the worker reserves
/// for it says so.
@Suite("Progressive JPEG memory")
struct ProgressiveJPEGTests {
    /// SOI, a JFIF segment, then a frame header of `marker` for 8000x6000 with three components
    /// sampled `samplings` (Y first), then a scan header.
    static func header(_ marker: UInt8, samplings: [UInt8] = [0x22, 0x11, 0x11]) -> [UInt8] {
        let jfif: [UInt8] = [0xFF, 0xE0, 0x00, 0x10] + Array("JFIF\0".utf8) + [1, 1, 0, 0, 1, 0, 1, 0, 0]
        var frame: [UInt8] = [0xFF, marker, 0x00, UInt8(8 + 3 * samplings.count), 8, 0x17, 0x70, 0x1F, 0x40, UInt8(samplings.count)]
        for (index, sampling) in samplings.enumerated() { frame += [UInt8(index + 1), sampling, 0] }
        return [0xFF, 0xD8] + jfif + frame + [0xFF, 0xDA, 0x00, 0x08, 1, 1, 0, 0, 63, 0]
    }

    @Test("a progressive frame's coefficients are counted at full size, by each component's sampling; a sequential frame's are not")
    func coefficients() throws {
        // 4:2:0: luma 1000 x 750 blocks, each chroma 500 x 375; 128 bytes a block: 3 bytes a pixel.
        #expect(try JPEGStructure.progressiveCoefficientBytes(ByteWindow(Self.header(0xC2))) == 144_000_000)
        // 4:4:4: 6 bytes a pixel.
        #expect(try JPEGStructure.progressiveCoefficientBytes(ByteWindow(Self.header(0xC2, samplings: [0x11, 0x11, 0x11]))) == 288_000_000)
        #expect(try JPEGStructure.progressiveCoefficientBytes(ByteWindow(Self.header(0xCA))) == 144_000_000, "arithmetic-coded progressive too")
        for sequential: UInt8 in [0xC0, 0xC1] {
            #expect(try JPEGStructure.progressiveCoefficientBytes(ByteWindow(Self.header(sequential))) == 0)
        }
        // Cut inside the frame header, or no JPEG at all: nothing known, nothing added.
        #expect(try JPEGStructure.progressiveCoefficientBytes(ByteWindow(Array(Self.header(0xC2).prefix(26)))) == 0)
        #expect(try JPEGStructure.progressiveCoefficientBytes(ByteWindow(Array("not a jpeg".utf8))) == 0)
    }
}
