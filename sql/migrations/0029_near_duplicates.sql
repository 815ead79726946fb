-- discern schema, version 29: near-duplicate photos (discern enqueue --near-duplicates last). A
-- job's perceptual hash (64 bits of how the photo looks, Imaging's PerceptualHash) is stored at
-- enqueue; a photo within a few bits of one enqueued before it in the same run is a
-- near-duplicate (a resized, recompressed or slightly cropped copy): it names that photo in
-- near_duplicate_of and waits behind everything else (priority 32767), so a quota goes to new
-- photos first. Neither column is indexed: no claim or completion pays for them.
ALTER TABLE discern.jobs
    ADD COLUMN perceptual_hash bigint,
    ADD COLUMN near_duplicate_of text CHECK (length(near_duplicate_of) <= 4096);
