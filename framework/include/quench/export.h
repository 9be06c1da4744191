// Symbol visibility for the quench framework library (built with -fvisibility=hidden).
#pragma once

#if defined(_WIN32)
#define QUENCH_API __declspec(dllexport)
#else
#define QUENCH_API __attribute__((visibility("default")))
#endif
