/* http-stub: placeholder until issue 5's planner tests land. */
int
main(void)
{
	return 70;
}
