#pragma once

namespace spindle::sapi {

/// Replaces PHP's realpath() with the one a non-thread-safe PHP (php-fpm) runs: the path
/// resolved through the realpath cache, open_basedir checked, and no second access(2) on the
/// result. A ZTS build adds that access(2) (ext/standard/file.c, `#ifdef ZTS`) although the
/// resolution already failed for a missing path, as it does without ZTS; WordPress calls
/// realpath() about 160 times for its front page (bench/RESULTS.md, "Where a real app's
/// classic request goes"). On each slot thread, once, after ts_resource().
void install_realpath_function();

}  // namespace spindle::sapi
