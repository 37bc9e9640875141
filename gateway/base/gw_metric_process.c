/* The process_* families, read from /proc at each scrape as Prometheus' process collector
 * does, so that dashboards built for kube-apiserver find them. */
#include "gw_metric.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define N_FAMILIES 7

static const gw_metric_desc_t descs[N_FAMILIES] = {
    {.name = "process_cpu_seconds_total",
     .help = "User and system CPU time spent, in seconds.",
     .type = GW_METRIC_COUNTER},
    {.name = "process_max_fds",
     .help = "The most file descriptors the process may open.",
     .type = GW_METRIC_GAUGE},
    {.name = "process_open_fds", .help = "File descriptors open.", .type = GW_METRIC_GAUGE},
    {.name = "process_resident_memory_bytes",
     .help = "Resident memory in bytes.",
     .type = GW_METRIC_GAUGE},
    {.name = "process_start_time_seconds",
     .help = "When the process started, in seconds since the Unix epoch.",
     .type = GW_METRIC_GAUGE},
    {.name = "process_virtual_memory_bytes",
     .help = "Virtual memory in bytes.",
     .type = GW_METRIC_GAUGE},
    {.name = "process_virtual_memory_max_bytes",
     .help = "The most virtual memory the process may map, in bytes (-1: no limit).",
     .type = GW_METRIC_GAUGE},
};

static gw_metric_t *families[N_FAMILIES];
static const char *const no_labels[1];

static void
put(int i, double v)
{
    gw_metric_set(families[i], no_labels, v);
}

static double
open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    double n = 0;
    if (d == NULL)
        return -1;
    while (readdir(d) != NULL)
        n++;
    closedir(d);
    return n - 3; /* ".", ".." and the directory's own descriptor */
}

/* Fields of /proc/self/stat after the command name: utime 14, stime 15, starttime 22,
 * vsize 23, rss 24 (pages), counted from 1 for the pid. */
static void
read_stat(void)
{
    char text[1024];
    FILE *f = fopen("/proc/self/stat", "r");
    size_t n = f != NULL ? fread(text, 1, sizeof(text) - 1, f) : 0;
    if (f != NULL)
        fclose(f);
    text[n] = '\0';
    char *p = strrchr(text, ')');
    unsigned long long field[25] = {0};
    for (int i = 3; p != NULL && i <= 24; i++) {
        p = strchr(p + 1, ' ');
        if (p != NULL)
            field[i] = strtoull(p + 1, NULL, 10);
    }
    double ticks = (double)sysconf(_SC_CLK_TCK);
    put(0, (double)(field[14] + field[15]) / ticks);
    put(3, (double)field[24] * (double)sysconf(_SC_PAGESIZE));
    put(5, (double)field[23]);
    struct timespec now, up;
    clock_gettime(CLOCK_REALTIME, &now);
    clock_gettime(CLOCK_BOOTTIME, &up);
    double boot = (double)now.tv_sec + now.tv_nsec / 1e9 - (up.tv_sec + up.tv_nsec / 1e9);
    put(4, (double)(long long)(boot + (double)field[22] / ticks));
}

static void
refresh(void *arg)
{
    (void)arg;
    struct rlimit lim;
    read_stat();
    put(2, open_fds());
    if (getrlimit(RLIMIT_NOFILE, &lim) == 0)
        put(1, lim.rlim_cur == RLIM_INFINITY ? -1 : (double)lim.rlim_cur);
    if (getrlimit(RLIMIT_AS, &lim) == 0)
        put(6, lim.rlim_cur == RLIM_INFINITY ? -1 : (double)lim.rlim_cur);
}

void
gw_metric_process_register(void)
{
    for (int i = 0; i < N_FAMILIES; i++)
        families[i] = gw_metric_family(&descs[i]);
    gw_metric_on_scrape(refresh, NULL);
}
