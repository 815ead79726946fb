import ErrorCodes
import ServiceClients
import Foundation
import Imaging
import MediaFiles
import SampleImages
import TestFixtures
import Testing

@Suite("Image preparation: every input kind")
struct InputKindTests {
    let preparer = ImagePreparer(policy: .discerner)

    @Test("each accepted format is read and sent as JPEG or PNG", arguments: [".png", ".webp", ".tif", ".heic", ".gif"])
    func acceptedFormats(suffix: String) throws {
        let photo = try SampleImages.photo(width: 640, height: 480, seed: 21)
        let input = try ImageFixtures.converted(photo, to: suffix)
        let prepared = try preparer.prepare(input)
        #expect([.jpeg, .png].contains(prepared.format))
        #expect(prepared.width == 640 && prepared.height == 480)
        let sent = try ImageInspector.inspect(prepared.data)
        #expect(sent.isEightBit && sent.isSRGB)
        if suffix == ".png" { #expect(prepared.passedThrough, "an opaque 8-bit PNG goes as it is") }
    }

    @Test("every EXIF orientation comes out upright", arguments: 1...8)
    func orientation(_ orientation: Int) throws {
        let input = try ImageFixtures.orientedMarker(orientation: orientation)
        let prepared = try preparer.prepare(input)
        #expect(prepared.passedThrough == (orientation == 1))
        #expect(prepared.width == 320 && prepared.height == 200, "upright is 320x200")
        let sent = try ImageInspector.inspect(prepared.data)
        #expect(sent.orientation == 1, "no orientation tag is left for a viewer to apply twice")
        let topLeft = try PixelMeasure.mean(of: prepared.data, left: 20, top: 20, width: 120, height: 60)
        let topRight = try PixelMeasure.mean(of: prepared.data, left: 180, top: 20, width: 120, height: 60)
        let bottomLeft = try PixelMeasure.mean(of: prepared.data, left: 20, top: 120, width: 120, height: 60)
        #expect(topLeft > 200, "the white quadrant is top left")
        #expect(topRight < 50 && bottomLeft < 50)
    }

    @Test("CMYK comes out as sRGB")
    func cmyk() throws {
        let input = try ImageFixtures.cmykJPEG(width: 400, height: 300)
        #expect(try ImageInspector.inspect(input).bands == 4)
        let prepared = try preparer.prepare(input)
        #expect(!prepared.passedThrough)
        let sent = try ImageInspector.inspect(prepared.data)
        #expect(sent.bands == 3 && sent.isSRGB)
    }

    @Test("16 bits per channel come out as 8")
    func sixteenBit() throws {
        let input = try ImageFixtures.sixteenBitPNG(width: 400, height: 300)
        #expect(try !ImageInspector.inspect(input).isEightBit)
        let prepared = try preparer.prepare(input)
        #expect(!prepared.passedThrough)
        let sent = try ImageInspector.inspect(prepared.data)
        #expect(sent.isEightBit && sent.bands == 3)
    }

    @Test("transparency is flattened on white, not black")
    func alphaOnWhite() throws {
        let prepared = try preparer.prepare(try ImageFixtures.transparentPNG(width: 200, height: 100))
        #expect(!prepared.passedThrough)
        #expect(try ImageInspector.inspect(prepared.data).bands == 3)
        #expect(try PixelMeasure.mean(of: prepared.data, left: 0, top: 0, width: 200, height: 100) > 250)
    }

    @Test("a decompression bomb is refused from its header, before any decoding")
    func decompressionBomb() throws {
        let bomb = try ImageFixtures.claimingDimensions(width: 60000, height: 60000)
        #expect(bomb.count < 10_000)
        let error = try #require(throws: ImagingError.self) { try preparer.prepare(bomb) }
        #expect(error.code == .tooManyPixels)
        #expect(error.message.contains("60000x60000"))
    }

    @Test("a truncated JPEG that needs transforming fails as truncated or undecodable")
    func truncatedTransform() throws {
        let photo = try SampleImages.photo(width: 5000, height: 3000, seed: 8)
        let error = try #require(throws: ImagingError.self) { try preparer.prepare(Data(photo.prefix(photo.count * 2 / 3))) }
        #expect([.truncated, .undecodable].contains(error.code))
        #expect(error.kind.retry != .yes)
    }

    @Test("Azure Face's 1 KB floor and 6 MB ceiling hold")
    func azureLimits() throws {
        let noisy = try SampleImages.noise(width: 2000, height: 1600)
        #expect(noisy.count > 6_000_000)
        let prepared = try ImagePreparer(policy: .azureFace).prepare(noisy)
        #expect(prepared.bytes <= 6_000_000 && prepared.bytes >= 1024)
    }
}
