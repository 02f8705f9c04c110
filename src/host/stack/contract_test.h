/*
 * contract_test.h - what only the tests reach of contract.h: seams and helpers the
 * product does not call.  The tests and contract.c include it; nothing
 * else does.
 */
#ifndef BOX_HOST_STACK_CONTRACT_TEST_H
#define BOX_HOST_STACK_CONTRACT_TEST_H

#include "host/stack/contract.h"

/* How many rules the contract has for env (all chains). */
size_t contract_nrules(const struct contract_env *env);

#endif
