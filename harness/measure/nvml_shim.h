/* measure/nvml_shim.h: the few NVML declarations the harness uses.
 * Debian 12 packages no NVML header for this toolkit and the GPU machine has no -dev
 * packages, so the harness declares the stable C ABI it calls (NVML API version 2
 * entry points, as exported by the driver's libnvidia-ml.so.1) and loads it with dlopen. */
#ifndef ATTNLADDER_NVML_SHIM_H
#define ATTNLADDER_NVML_SHIM_H

typedef int nvml_return;              /* nvmlReturn_t: 0 is success */
typedef struct nvml_device *nvml_device;

enum { NVML_CLOCK_SM_ = 1, NVML_CLOCK_MEM_ = 2, NVML_TEMPERATURE_GPU_ = 0 };

/* clock-event (throttle) reason bits, nvmlClocksEventReason* */
#define NVML_REASON_GPU_IDLE        0x1ull
#define NVML_REASON_APP_CLOCKS      0x2ull
#define NVML_REASON_SW_POWER_CAP    0x4ull
#define NVML_REASON_HW_SLOWDOWN     0x8ull
#define NVML_REASON_SYNC_BOOST      0x10ull
#define NVML_REASON_SW_THERMAL      0x20ull
#define NVML_REASON_HW_THERMAL      0x40ull
#define NVML_REASON_HW_POWER_BRAKE  0x80ull
#define NVML_REASON_DISPLAY_CLOCKS  0x100ull

typedef nvml_return (*nvml_init_fn)(void);
typedef nvml_return (*nvml_shutdown_fn)(void);
typedef nvml_return (*nvml_by_pci_fn)(const char *bus_id, nvml_device *dev);
typedef nvml_return (*nvml_clock_fn)(nvml_device dev, int type, unsigned int *mhz);
typedef nvml_return (*nvml_temp_fn)(nvml_device dev, int sensor, unsigned int *c);
typedef nvml_return (*nvml_power_fn)(nvml_device dev, unsigned int *milliwatts);
typedef nvml_return (*nvml_reasons_fn)(nvml_device dev, unsigned long long *mask);
typedef nvml_return (*nvml_driver_fn)(char *version, unsigned int len);

/* nvmlPerfPolicyType_t values and nvmlViolationTime_t: how long, in total since the driver
 * loaded, each limit has held the clocks below their application clocks */
enum { NVML_POLICY_POWER_ = 0, NVML_POLICY_THERMAL_ = 1, NVML_POLICY_BOARD_LIMIT_ = 3,
       NVML_POLICY_RELIABILITY_ = 5 };
typedef struct {
    unsigned long long reference_us;   /* a CPU timestamp, microseconds */
    unsigned long long violation_ns;   /* the limit's total, nanoseconds */
} nvml_violation;
typedef nvml_return (*nvml_violation_fn)(nvml_device dev, int policy, nvml_violation *v);

#endif
