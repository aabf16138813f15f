/* IRQControl and IRQHandler; interrupt delivery. seL4: src/object/interrupt.c. */
#ifndef MCSIM_OBJECT_INTERRUPT_H
#define MCSIM_OBJECT_INTERRUPT_H

#include "kernel/invocation.h"

enum kerr irq_control_decode(struct invocation *inv);
enum kerr irq_handler_decode(struct invocation *inv);

/* An interrupt on `line` was taken (the timer line included). */
void irq_handle(uint32_t line);

/* Last IRQHandler cap deleted: mask the line, forget the notification. */
void irq_finalise(uint32_t irq);

#endif /* MCSIM_OBJECT_INTERRUPT_H */
