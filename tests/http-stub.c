/*
 * http-stub MODE PORTFILE: a tiny HTTP server on 127.0.0.1 for the
 * planner's tests. It listens on a port the kernel picks, writes the port
 * to PORTFILE (atomically, so a reader never sees half a number), and
 * answers every request by MODE:
 *
 *   ok-anthropic  200, a Messages API reply whose text holds ideas in a
 *                 ```json fence, with prose around it
 *   ok-openai     200, a chat completions reply, the ideas as bare JSON
 *   malformed     200, a body that is not JSON at all
 *   noideas       200, a Messages API reply whose text is JSON without ideas
 *   nosources     200, a Messages API reply whose third idea has no sources
 *   500           an internal server error
 *   hang          reads the request and never answers
 *   empty         200 with an empty body
 *
 * Each request (headers and body) is appended to PORTFILE.log, so tests
 * can count the tries and check what was sent. It exits by itself after
 * five minutes, so a test that forgets it leaves nothing running long.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define IDEAS \
	"{\\\"ideas\\\":[" \
	"{\\\"title\\\":\\\"four rows at a time\\\",\\\"category\\\":\\\"unroll\\\"," \
	"\\\"hypothesis\\\":\\\"reuse each x load across four rows\\\"," \
	"\\\"priority\\\":20,\\\"hint\\\":\\\"single\\\"," \
	"\\\"sources\\\":[\\\"https://arxiv.org/abs/2208.07339\\\"]}," \
	"{\\\"title\\\":\\\"rows across threads\\\",\\\"category\\\":\\\"parallel\\\"," \
	"\\\"hypothesis\\\":\\\"split rows over the k CPUs\\\"," \
	"\\\"priority\\\":10,\\\"hint\\\":\\\"scale\\\"," \
	"\\\"sources\\\":[\\\"roofline in the digest\\\",\\\"https://github.com/ggerganov/llama.cpp\\\"]}" \
	"]}"

static const char *
reply(const char *mode)
{
	if (strcmp(mode, "ok-anthropic") == 0)
		return "{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\","
		    "\"content\":[{\"type\":\"text\",\"text\":\"I read the digest "
		    "and two papers.\\n\\n```json\\n" IDEAS "\\n```\\nGood luck.\"}],"
		    "\"stop_reason\":\"end_turn\"}";
	if (strcmp(mode, "ok-openai") == 0)
		return "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\","
		    "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\","
		    "\"content\":\"" IDEAS "\"},\"finish_reason\":\"stop\"}]}";
	if (strcmp(mode, "malformed") == 0)
		return "<html>this is not JSON</html>";
	if (strcmp(mode, "noideas") == 0)
		return "{\"content\":[{\"type\":\"text\",\"text\":"
		    "\"{\\\"thoughts\\\":\\\"none today\\\"}\"}]}";
	if (strcmp(mode, "nosources") == 0)
		return "{\"content\":[{\"type\":\"text\",\"text\":\"{\\\"ideas\\\":["
		    "{\\\"title\\\":\\\"a\\\",\\\"hypothesis\\\":\\\"h\\\",\\\"sources\\\":[\\\"s\\\"]},"
		    "{\\\"title\\\":\\\"b\\\",\\\"hypothesis\\\":\\\"h\\\",\\\"sources\\\":[\\\"s\\\"]},"
		    "{\\\"title\\\":\\\"c\\\",\\\"hypothesis\\\":\\\"h\\\"}]}\"}]}";
	if (strcmp(mode, "empty") == 0)
		return "";
	return NULL;
}

/* Reads one request: headers, then Content-Length bytes of body. */
static int
read_request(int fd, FILE *log)
{
	char buf[65536];
	size_t len = 0;
	long body = -1;
	char *end = NULL;

	for (;;) {
		ssize_t n;

		if (len == sizeof buf - 1)
			return -1;
		n = read(fd, buf + len, sizeof buf - 1 - len);
		if (n <= 0)
			return -1;
		len += (size_t)n;
		buf[len] = '\0';
		if (!end && (end = strstr(buf, "\r\n\r\n")) != NULL) {
			const char *cl = strcasestr(buf, "\r\ncontent-length:");

			body = cl ? strtol(cl + 17, NULL, 10) : 0;
		}
		if (end && (long)len >= (end + 4 - buf) + body)
			break;
	}
	fwrite(buf, 1, len, log);
	fputs("\n--\n", log);
	fflush(log);
	return 0;
}

int
main(int argc, char **argv)
{
	struct sockaddr_in a;
	socklen_t alen = sizeof a;
	const char *mode, *body;
	char *tmp, *logname;
	FILE *f, *log;
	int s, one = 1;

	if (argc != 3) {
		fputs("usage: http-stub mode portfile\n", stderr);
		return 64;
	}
	mode = argv[1];
	body = reply(mode);
	if (!body && strcmp(mode, "500") != 0 && strcmp(mode, "hang") != 0) {
		fprintf(stderr, "http-stub: %s: unknown mode\n", mode);
		return 64;
	}
	signal(SIGPIPE, SIG_IGN);
	alarm(300);
	s = socket(AF_INET, SOCK_STREAM, 0);
	if (s < 0)
		return perror("http-stub: socket"), 71;
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.sin_port = 0;
	if (bind(s, (struct sockaddr *)&a, sizeof a) < 0 || listen(s, 16) < 0 ||
	    getsockname(s, (struct sockaddr *)&a, &alen) < 0)
		return perror("http-stub: bind"), 71;

	if (asprintf(&logname, "%s.log", argv[2]) < 0 ||
	    asprintf(&tmp, "%s.tmp", argv[2]) < 0)
		return 71;
	log = fopen(logname, "a");
	f = fopen(tmp, "w");
	if (!log || !f) {
		perror("http-stub: portfile");
		if (log)
			fclose(log);
		if (f)
			fclose(f);
		return 73;
	}
	fprintf(f, "%d\n", ntohs(a.sin_port));
	if (fclose(f) != 0 || rename(tmp, argv[2]) != 0) {
		perror("http-stub: portfile");
		fclose(log);
		return 73;
	}

	for (;;) {
		char head[256];
		int c = accept(s, NULL, NULL);

		if (c < 0) {
			if (errno == EINTR)
				continue;
			return perror("http-stub: accept"), 71;
		}
		if (read_request(c, log) < 0) {
			close(c);
			continue;
		}
		/* A hung answer keeps the connection open and serves the next. */
		if (strcmp(mode, "hang") == 0)
			continue;
		if (strcmp(mode, "500") == 0) {
			const char *e = "{\"error\":\"internal\"}";

			snprintf(head, sizeof head, "HTTP/1.1 500 Internal Server "
			    "Error\r\nContent-Type: application/json\r\n"
			    "Content-Length: %zu\r\nConnection: close\r\n\r\n",
			    strlen(e));
			body = e;
		} else {
			snprintf(head, sizeof head, "HTTP/1.1 200 OK\r\n"
			    "Content-Type: application/json\r\nContent-Length: "
			    "%zu\r\nConnection: close\r\n\r\n", strlen(body));
		}
		if (write(c, head, strlen(head)) < 0 ||
		    write(c, body, strlen(body)) < 0)
			perror("http-stub: write");
		close(c);
	}
}
