/*
 * kp_tune.h: tunable values in CUDA source (docs/tune.md). Plain preprocessor, C and C++, nvcc and
 * NVRTC; the harness adds -I for it. Untuned, every marker is its first (default) value:
 *
 *     #include "kp_tune.h"
 *     constexpr int kBlock = KP_TUNE(BLOCK, 256, 128, 512, 1024);   // 256 unless tuned
 *     constexpr int kItems = KP_TUNE(ITEMS, 4, 1, 2, 8);
 *     KP_TUNE_CONSTRAINT(BLOCK * ITEMS <= 4096);
 *
 *     template <int B> __global__ void __launch_bounds__(B) kern(...);
 *     kern<kBlock><<<(n + kBlock * kItems - 1) / (kBlock * kItems), kBlock, 0, stream>>>(...);
 *
 *     KP_UNROLL(UNROLL, 4, 1, 2, 8)          // a #pragma unroll whose count is a knob
 *     for (int i = 0; i < kItems; i++) ...
 *
 * kernelpro tunes by rewriting each marker with the chosen value first, so a tuned source is plain
 * text that builds the same way. By hand, pick a value with -DKP_TUNE_<NAME>=(<value>), parentheses
 * included: nvcc -DKP_TUNE_BLOCK='(512)'. A NAME is an uppercase letter then letters, digits or '_';
 * use it only inside markers (Kernel Tuner defines knob names as macros when it compiles the same file).
 * Values are decimal integers; the same NAME may appear several times with the same list.
 * `#pragma unroll` does not expand macros: use KP_UNROLL, or `#pragma unroll kUnroll` with a
 * constexpr int.
 */
#ifndef KP_TUNE_H
#define KP_TUNE_H

#define KP_TUNE__CAT_(a, b) a##b
#define KP_TUNE__CAT(a, b) KP_TUNE__CAT_(a, b)
#define KP_TUNE__SECOND(a, b, ...) b
#define KP_TUNE__SECOND_(...) KP_TUNE__SECOND(__VA_ARGS__)
#define KP_TUNE__FIRST(a, ...) a
/* 1 when x is a parenthesised value (KP_TUNE_NAME was defined as (v)), else 0. */
#define KP_TUNE__PROBE(...) ~, 1
#define KP_TUNE__IS_PAREN(x) KP_TUNE__SECOND_(KP_TUNE__PROBE x, 0, ~)
#define KP_TUNE__IF_0(set, dflt) dflt
#define KP_TUNE__IF_1(set, dflt) set
#define KP_TUNE__PICK(set, ...) KP_TUNE__CAT(KP_TUNE__IF_, KP_TUNE__IS_PAREN(set))(set, (KP_TUNE__FIRST(__VA_ARGS__)))

/* The value of knob NAME: -DKP_TUNE_NAME=(v) when given, else the first of the values. */
#define KP_TUNE(NAME, ...) KP_TUNE__PICK(KP_TUNE_##NAME, __VA_ARGS__)

#define KP_TUNE__STR(x) #x
#define KP_TUNE__PRAGMA(x) _Pragma(KP_TUNE__STR(x))
/* #pragma unroll <the knob's value>, placed before a loop. */
#define KP_UNROLL(NAME, ...) KP_TUNE__PRAGMA(unroll KP_TUNE(NAME, __VA_ARGS__))

/*
 * A constraint between knobs, read by kernelpro only: integer + - * / % (floor division), comparisons,
 * && || !, parentheses, knob names and the constants of docs/tune.md (SMEM_PER_BLOCK, WARP_SIZE, ...).
 * Write it at file or function scope, with a semicolon.
 */
#ifdef __cplusplus
#define KP_TUNE_CONSTRAINT(...) static_assert(true, "kernelpro tuning constraint")
#else
#define KP_TUNE_CONSTRAINT(...) _Static_assert(1, "kernelpro tuning constraint")
#endif

#endif
