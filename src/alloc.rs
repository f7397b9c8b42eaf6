//! The global allocator on wasm32: talc (3.2 KB gzip smaller than std's
//! dlmalloc for the same module), taking memory from the module's own
//! memory in steps that grow with it.
//!
//! talc's own wasm source grows the memory by just what the allocation in
//! hand needs, a page or so at a time: parsing a 106 MB stream made
//! thousands of `memory.grow` calls, each a call into the engine that also
//! detaches the memory's `ArrayBuffer` (the glue then makes its views
//! again). That was most of the first parse's time: 1.76 s against 0.53 s
//! for the same parse once the memory had grown. Past 16 MiB, growing by
//! half what the module has, at most 8 MiB at a time, makes that under a
//! hundred calls. Below 16 MiB the memory still grows by what is needed:
//! there, free space past the heap's end made `record()` 2-4 % slower
//! (measured; most likely talc carving each small block from it and
//! merging it back on free). Pages grown and not yet used cost address space, not memory,
//! where the engine maps them as they are touched; where a host counts the
//! memory's size (a Worker's 128 MB), a step is at most 8 MiB more than
//! needed.

use core::alloc::Layout;
use core::arch::wasm32::{memory_grow, memory_size};
use core::ptr::NonNull;

use talc::base::{binning::Binning, Talc};

const PAGE: usize = 65_536;
/// Memory past which the allocator grows it in steps, and the largest
/// step, in pages: 16 and 8 MiB.
const STEPS_FROM: usize = 256;
const MAX_STEP: usize = 128;

/// Memory from `memory.grow`, in growing steps, extending the heap when the
/// new pages follow it (they always do: nothing else grows the memory).
#[derive(Debug, Default)]
pub struct GrowingSource {
    end: Option<NonNull<u8>>,
}

impl GrowingSource {
    pub const fn new() -> GrowingSource {
        GrowingSource { end: None }
    }
}

// SAFETY: acquire neither allocates nor calls back into the allocator; it
// gives talc only pages just grown, which nothing else uses.
unsafe impl talc::source::Source for GrowingSource {
    fn acquire<B: Binning>(talc: &mut Talc<Self, B>, layout: Layout) -> Result<(), ()> {
        // What this allocation needs, with room for talc's chunk headers
        // and alignment; past 16 MiB, the step: half the memory the module
        // has, at most 8 MiB (a Worker's memory is capped at 128 MB: a step
        // may take that much more than the module uses).
        let needed = (layout.size() + layout.align() + 256).div_ceil(PAGE);
        let have = memory_size::<0>();
        let step = if have < STEPS_FROM { needed } else { needed.max((have / 2).min(MAX_STEP)) };
        let (first, pages) = match memory_grow::<0>(step) {
            // Near the engine's limit a step may not fit where the allocation still does.
            usize::MAX => match memory_grow::<0>(needed) {
                usize::MAX => return Err(()),
                first => (first, needed),
            },
            first => (first, step),
        };
        let base = (first * PAGE) as *mut u8;
        let bytes = pages * PAGE;
        let new_end = base.wrapping_add(bytes);
        if let Some(old_end) = talc.source.end.take() {
            if old_end.as_ptr() == base {
                // SAFETY: the pages from `old_end` to `new_end` were just grown, after the heap.
                talc.source.end = Some(unsafe { talc.extend(old_end, new_end) });
                return Ok(());
            }
        }
        // SAFETY: the pages were just grown and nothing else holds them.
        talc.source.end = unsafe { talc.claim(base, bytes) };
        Ok(())
    }
}

#[global_allocator]
static ALLOCATOR: talc::cell::TalcSyncCell<GrowingSource, talc::wasm::WasmBinning> = talc::cell::TalcSyncCell::new_wasm(GrowingSource::new());
