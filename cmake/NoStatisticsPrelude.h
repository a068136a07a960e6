//===- NoStatisticsPrelude.h - keep llvm::Statistic's layout ----*- C++ -*-===//
//
// Force-included first in every C++ file of the assertions build
// (TENSORLANG_ENABLE_ASSERTIONS), which undefines NDEBUG for our sources
// while Debian's libMLIR.so is built with it. llvm/ADT/Statistic.h chooses
// the layout of llvm::Statistic from NDEBUG (TrackingStatistic without it,
// NoopStatistic with it), and mlir::Pass::Statistic is constructed inside
// libMLIR: a pass of ours incrementing a statistic would then read the
// `Initialized` flag of a TrackingStatistic that was never built (UBSan:
// "load of value 190, which is not a valid value for type bool"). Including
// Statistic.h once with NDEBUG defined makes both sides agree; assert() is
// live again after <cassert> is included without NDEBUG.
//
//===----------------------------------------------------------------------===//

#ifndef NDEBUG
#define NDEBUG
#include "llvm/ADT/Statistic.h"
#undef NDEBUG
#include <cassert>
#endif
