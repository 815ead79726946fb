import CVipsFixtureShim
import Foundation
import Imaging
import SampleImages

/// Reads pixels back, for tests that check what preparation did to them.
public enum PixelMeasure {
    /// The mean pixel value (all bands) over a rectangle of a decoded image: 0 black, 255 white.
    public static func mean(of data: Data, left: Int, top: Int, width: Int, height: Int) throws(ImagingError) -> Double {
        let image = try ImageFixtures.decode(data)
        var mean = 0.0
        guard cvipsfixtureshim_region_mean(image.pointer, Int32(left), Int32(top), Int32(width), Int32(height), &mean) == 0 else {
            throw ImagingError(.processingFailed, "cannot measure the region: \(Vips.takeError())")
        }
        return mean
    }
}
